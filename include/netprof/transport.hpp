#pragma once

// The seam between the core and every transport. Transports move bytes; the core measures.
// A transport never decodes headers, counts sequence numbers or keeps statistics.

#include <netprof/clock.hpp>
#include <netprof/qos.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace netprof {

enum class Role { publisher, subscriber };

// Names the sender of a delivered message, in the transport's own encoding (UDP: its IPv4
// address and port). A value: the core may keep it after on_message returns and hand it back
// to Endpoint::adopt_peer of the same endpoint at any later time. The core never looks inside.
// none(): the medium has no per-peer addressing (or the transport cannot name the sender).
struct PeerHandle {
  std::uint64_t value = 0;

  bool none() const noexcept { return value == 0; }
  friend bool operator==(PeerHandle, PeerHandle) = default;
};

// One received message, with what the transport knows of it: a transport that splits messages
// into datagrams, or adds framing of its own, says so here, so the report can show datagrams
// and wire bytes beside messages and payload bytes.
struct Delivery {
  // Borrowed: valid only for the duration of MessageSink::on_message, so the core copies what
  // it keeps. Every other field is a plain value the core may keep.
  std::span<const std::byte> bytes;
  std::uint32_t datagrams = 1; // at least 1
  std::size_t wire_bytes = 0;  // bytes the transport carried for it, framing included; at
                               // least bytes.size()
  PeerHandle sender;
};

// Receives every message an endpoint takes in. Owned by the core.
class MessageSink {
public:
  virtual ~MessageSink() = default;

  // Called once per received message, while Endpoint::receive runs and before it returns:
  // on the thread that called it, or on a transport's own thread (a DDS listener) while the
  // caller waits inside receive, the hand-over ordered so the sink's state is touched by one
  // thread at a time. The sink may call Endpoint::send from here (subscribers echo probes this
  // way).
  virtual void on_message(const Delivery& delivery) noexcept = 0;
};

enum class SendResult {
  sent,           // handed to the transport for every peer it knows (none yet counts as sent: the
                  // message is simply not heard; a peer that was skipped shows up as loss)
  back_pressured, // the transport would have to wait; the message was not sent
  failed          // a transport error; the message was not sent
};

// Why a send() (or send_announced()) did not return SendResult::sent, so the core can count
// pushed-back and failed sends by cause. The transport only names the cause; the core counts.
// Keep `count_` last: the core sizes a fixed array by it.
enum class SendCause : std::uint8_t {
  unspecified,     // the transport did not say
  would_block,     // EAGAIN/EWOULDBLOCK: the socket's send buffer is full
  no_buffer_space, // ENOBUFS: the kernel's device queue is full
  high_water_mark, // ZeroMQ: a peer's queue reached its high-water mark (EAGAIN from zmq_send)
  ring_full,       // shared memory: the ring has no room (a keep-all subscriber lags)
  queue_full,      // POSIX message queue: a subscriber's queue is full
  connecting,      // a connection is still being set up (TCP, Unix-domain dialling)
  interrupted,     // EINTR: a signal cut the call short
  error,           // a transport error (the send failed)
  count_
};

// What Endpoint::wait_for_room came to.
enum class RoomWait {
  ready,       // there may be room now (or the timeout passed): try the send again
  unsupported, // the transport has nothing to wait on; the core waits its own way
  failed       // a transport error
};

enum class ReceiveResult {
  received,  // at least one message went to the sink
  timed_out, // nothing arrived within the timeout (or nothing was waiting, for timeout zero)
  failed     // a transport error; the core ends the run
};

// What a transport can do, declared when an endpoint opens and fixed for its life, so that
// neither the core nor the report has to guess it from the transport's name.
struct Capabilities {
  // Sends only to the peers it knows, so a publisher adopts each subscriber that says hello
  // (Endpoint::adopt_peer). False: whatever it sends reaches every subscriber on the medium.
  bool addresses_peers_one_by_one = false;
  // Everyone on it hears whatever anyone else sends there (multicast, broadcast): subscribers
  // hear one another's hellos and echoes, and a second publisher's data reaches them all.
  bool shared_medium = false;
  // May send a data message given to send_announced() without copying its payload again.
  bool lends_announced_payload = false;

  friend bool operator==(const Capabilities&, const Capabilities&) = default;
};

// What an endpoint tells the report about itself after opening.
struct EndpointFacts {
  std::string transport;                    // registry name, e.g. "udp"
  std::vector<std::string> local_addresses; // what this process bound or joined
  std::vector<std::string> peer_addresses;  // where it sends
  std::size_t max_message_size = 0;         // largest message send() accepts, in bytes
  // It sends datagrams (UDP), so a message may take several and "Datagrams:" means something;
  // a stream or message transport counts one per message and the text report leaves it out.
  bool sends_datagrams = false;
  // Largest message it takes in, where that is less than max_message_size (a publisher's back
  // channel: shared memory's back rings, a stream's read limit); 0: max_message_size.
  std::size_t max_received_message_size = 0;
  std::string size_hint; // how to carry more, e.g. "a larger -q makes a larger ring"
  std::size_t requested_buffer_bytes = 0;       // -q as given (0: OS default)
  std::size_t granted_send_buffer_bytes = 0;    // usable bytes, as the user would request
  std::size_t granted_receive_buffer_bytes = 0; // them (Linux reports twice that)
  Capabilities capabilities;                    // the same as Endpoint::capabilities()
  std::vector<std::string> notes; // e.g. "receive buffer clamped by net.core.rmem_max"
  // Most peers connected at once, where the transport counts them (ZeroMQ: subscribed
  // connections); 0 when it does not. More than the run's subscribers means strangers.
  std::size_t peak_connections = 0;
  // What the transport saw that may explain a failed run (a key that does not match, a
  // connection it had to close); listed under the problems of a run that failed only.
  std::vector<std::string> diagnoses;
  // How long the transport took to find its peers, from opening until its endpoints were
  // matched (DDS discovery); none when it has no discovery or it never completed.
  std::optional<double> discovery_seconds;
  // The QoS in effect (Transport::effective_qos), set by the core beside the endpoint's own.
  EffectiveQos qos{};
};

// What the core asks of a transport when opening an endpoint.
struct EndpointRequest {
  Role role = Role::publisher;
  std::uint32_t id = 0;
  std::size_t queue_length_bytes = 0; // -q: socket buffers or ring capacity; 0 = default
  std::size_t message_size = 0;       // the data messages' size (header + -s), for sizing queues
  // The bytes the core puts in front of every payload (its header): a transport whose limits
  // are stated in payload bytes adds these to size its messages.
  std::size_t header_bytes = 0;
  // The largest control message (not data) this role reads, so a transport can refuse larger
  // ones from strangers wherever no data arrives (all of a publisher's connections); 0 = not
  // stated. Data is left out: a subscriber takes the publisher's size, which may not be its -s.
  std::size_t largest_control_message = 0;
  // Publisher: the subscribers it waits for (--subscribers), to size what it needs per peer.
  std::size_t subscribers = 0;
  // --reliability and --history as given (empty: neither); Transport::effective_qos maps them.
  QosRequest qos{};
};

// ---- Lending (optional): the transport lends the memory an outgoing message is written into --
//
// A transport whose medium is memory (iceoryx's chunks, the shm ring's slots) can hand the core
// the very bytes a message will be read from, so the core writes its header (and the payload,
// when it must) there and nothing is copied again; as Aeron's tryClaim/commit and iceoryx's
// loan/publish. The core asks Endpoint::lender() once, right after the endpoint opens, and uses
// the lender for data messages only; control messages keep going through send().

// Memory lent for one outgoing message (MessageLender::claim). The core hands it back to commit()
// or abandon() as it got it; at most one loan of a lender is out at a time.
struct Loan {
  // Exactly the size claimed, writable until commit() or abandon(); empty when refused.
  std::span<std::byte> bytes;
  // It already holds, byte for byte, what this lender last committed at this size from the
  // same memory, and nothing has written there since: a writer whose messages all end with the
  // same payload need rewrite only the header in front of it. False whenever in doubt.
  bool holds_payload = false;
  // When refused (bytes empty): back_pressured (no room yet; waiting makes some, as for send())
  // or failed (too large, or a transport error), with why, as the core counts send() refusals.
  SendResult refusal = SendResult::sent;
  SendCause cause = SendCause::unspecified;
};

// Obtained through Endpoint::lender(); lives as long as its endpoint. Used from the same single
// thread as the endpoint; never allocates, never throws, never blocks longer than send() would.
class MessageLender {
public:
  virtual ~MessageLender() = default;

  // Lends room for one message of exactly `size` bytes (at least 1), or refuses (an empty Loan
  // saying why). Nothing is sent until commit(); a refused claim leaves nothing to commit or
  // abandon.
  virtual Loan claim(std::size_t size) noexcept = 0;

  // Sends the loan's bytes as send() would send them (to the same peers, the same way, waiting
  // where send() waits: iceoryx under --iox-queue-full block). The room was taken at claim(),
  // so only a transport error fails it (cause: SendCause::error).
  virtual SendResult commit(const Loan& loan) noexcept = 0;

  // Gives the loan back unsent: nothing of it reaches anyone, and the memory is no longer
  // said to hold a payload (whatever the core wrote into it meanwhile).
  virtual void abandon(const Loan& loan) noexcept = 0;
};

// One open endpoint. Used from a single thread: the measured loop.
class Endpoint {
public:
  virtual ~Endpoint() = default;

  // Publisher: to every subscriber. Subscriber: back to the publisher. Never blocks for long,
  // never allocates, never throws.
  virtual SendResult send(std::span<const std::byte> message) noexcept = 0;

  // A transport may hold back what send() was given to send several messages in one system
  // call; flush() sends whatever is held. The core calls it after every probe, before it
  // waits, and at the end of each phase, so batching never delays a latency sample.
  virtual SendResult flush() noexcept { return SendResult::sent; }

  // Hands waiting messages to the sink (at most a small batch). With a zero timeout it never
  // blocks, so the core can busy-poll; otherwise it waits up to `timeout` for the first one.
  virtual ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept = 0;

  // Starts sending to the sender of a delivered message (the core adopts each subscriber
  // that says hello), at any time after its delivery. True when it is a peer now; false when
  // it cannot be (the peer table is full, or the handle names no one). A transport that
  // reaches everyone anyway (Capabilities::addresses_peers_one_by_one false) returns true.
  virtual bool adopt_peer(PeerHandle /*sender*/) noexcept { return true; }

  // Sends a small control message (no larger than the one it answers) to the sender of a
  // delivered message only, without making it a peer: the publisher's address-proof challenge
  // (wire.hpp) goes to whoever said hello, and to no one else. A transport that cannot address
  // one peer (Capabilities::addresses_peers_one_by_one false) sends it as send() does, to
  // everyone on the medium, where the sender is too.
  virtual SendResult reply(PeerHandle /*sender*/, std::span<const std::byte> message) noexcept
  {
    return send(message);
  }

  // Called by the core once, before the first data message, with the payload every data
  // message will end with: bytes never rewritten while the endpoint lives (the core rewrites
  // only the header in front of them). A transport may keep a copy of them so as to send data
  // messages without copying the payload again (ZeroMQ lends buffers holding it). Called at
  // setup, so it may allocate; throws TransportError when it cannot.
  virtual void announce_payload(std::span<const std::byte> /*payload*/) {}

  // send() for a data message, which the core promises ends with the announced payload:
  // message.size() minus the payload's size is the header in front of it. A transport that
  // lends (Capabilities::lends_announced_payload) sends its own copy of the payload; others
  // send as send() does, and override this only to save the call through the base class.
  virtual SendResult send_announced(std::span<const std::byte> message) noexcept
  {
    return send(message);
  }

  // After a send was back-pressured, under --wait-strategy block: sleeps in the kernel until
  // the transport could take a message again (a socket turns writable), for at most
  // `timeout`, as a blocking sender's send() would. Never allocates; a transport that cannot
  // wait for room leaves it unsupported.
  virtual RoomWait wait_for_room(Nanoseconds /*timeout*/) noexcept { return RoomWait::unsupported; }
  // Why the last send(), send_announced() or flush() that did not return SendResult::sent did
  // not: read by the core right after such a result, to count pushed-back sends by cause.
  // Never allocates; a transport that does not override it leaves the cause unspecified.
  virtual SendCause last_send_cause() const noexcept { return SendCause::unspecified; }

  // What it can do; the same for the endpoint's whole life.
  virtual Capabilities capabilities() const noexcept = 0;

  virtual EndpointFacts facts() const = 0;

  // The endpoint's lender when it lends the memory messages are written into (see Loan); null
  // when it does not. Asked once, right after the endpoint opens; the same for its whole life.
  virtual MessageLender* lender() noexcept { return nullptr; }
};

} // namespace netprof
