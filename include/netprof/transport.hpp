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
// to Endpoint::reply of the same endpoint at any later time. The core never looks inside.
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

  // Asked by a transport that delivered on a thread of its own (a DDS listener) whether to wake
  // the thread waiting inside receive now: true when something that came since it last asked
  // needs that thread before its wait ends (the run's end). A sink that only counted what came
  // (a subscriber's data, a stream's echoes), or acted on it here (a ping-pong publisher sends
  // its next probe, SendLoop::relay_next_probe), says false, and the transport lets the wait
  // run out instead of waking a thread per message. Called only while the sink is lent, so it
  // may send, as on_message may.
  virtual bool wants_control() noexcept { return true; }
};

enum class SendResult {
  sent,           // handed to the transport for every peer it knows (none yet counts as sent: the
                  // message is simply not heard; a peer that was skipped shows up as loss)
  back_pressured, // the transport would have to wait; the message was not sent
  failed          // a transport error; the message was not sent
};

// Why a send did not come to SendResult::sent, so the core can count pushed-back and failed
// sends by cause. The transport only names the cause; the core counts.
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

// What one Endpoint::send or flush came to, and why when it was not sent: both from the same
// call, so nothing about a refusal has to be asked for afterwards.
struct SendOutcome {
  SendResult result = SendResult::sent;
  SendCause cause = SendCause::unspecified; // unspecified when sent

  bool sent() const noexcept { return result == SendResult::sent; }
  friend bool operator==(const SendOutcome&, const SendOutcome&) = default;
};

// What becomes of the sender Endpoint::reply answers.
enum class PeerFate : std::uint8_t {
  // Answered alone and not made a peer: the address-proof challenge to a sender not proven
  // yet, which must get nothing else of the run.
  keep_unadopted,
  // Made a peer first (the publisher takes in a subscriber whose hello proved its address; a
  // subscriber takes the publisher that invited it), then answered as send() sends, to every
  // peer, the sender now among them.
  adopt
};

// What Endpoint::reply came to.
struct ReplyOutcome {
  SendOutcome sent;
  // PeerFate::adopt: the sender is a peer now (or the transport reaches everyone anyway);
  // false when it cannot be one (the peer table is full, or the handle names no one).
  // Always false for keep_unadopted.
  bool adopted = false;
};

// What RoomWaiter::wait_for_room came to.
enum class RoomWait {
  ready, // there may be room now (or the timeout passed): try the send again
  failed // a transport error
};

enum class ReceiveResult {
  received,  // at least one message went to the sink
  timed_out, // nothing arrived within the timeout (or nothing was waiting, for timeout zero)
  failed     // a transport error; the core ends the run
};

// What a transport can do, declared in EndpointFacts when an endpoint opens and fixed for its
// life, so that neither the core nor the report has to guess it from the transport's name.
struct Capabilities {
  // Sends only to the peers it knows, so a publisher adopts each subscriber that says hello
  // (Endpoint::reply with PeerFate::adopt). False: whatever it sends reaches every subscriber
  // on the medium.
  bool addresses_peers_one_by_one = false;
  // Everyone on it hears whatever anyone else sends there (multicast, broadcast): subscribers
  // hear one another's hellos and echoes, and a second publisher's data reaches them all.
  bool shared_medium = false;
  // Sends a data message's payload from copies of its own, without copying it per message
  // (PayloadKeeper; ZeroMQ's --zmq-zero-copy).
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
  Capabilities capabilities;                    // fixed from opening on
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

// The core's default -s, in bytes.
inline constexpr std::size_t default_payload_size = 128;

// --payload-type: the form a transport that serializes samples (DDS) gives the payload. Every
// other transport moves netprof's message as opaque bytes and takes only `bytes`
// (TransportFlags::typed_payloads).
enum class PayloadType {
  bytes,       // opaque bytes (a sequence of octets)
  flat_struct, // a flat struct: a few numbers and a fixed-size array
  nested       // a sequence of structs, each holding a string and numbers
};

inline const char* to_string(PayloadType type) noexcept
{
  switch (type) {
  case PayloadType::flat_struct:
    return "struct";
  case PayloadType::nested:
    return "nested";
  case PayloadType::bytes:
    break;
  }
  return "bytes";
}

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
  // --payload-type: anything but bytes only where the transport's flags say it serializes.
  PayloadType payload_type = PayloadType::bytes;
  // --fanout round-robin: each data message goes to one subscriber (a transport that deals them
  // itself, MessageDealer, opens for that; one the core deals through, PeerSender, need not care).
  bool round_robin = false;

  // message_size, or while that is not known (0) the size of a data message of the default -s.
  std::size_t message_size_or_default() const noexcept
  {
    return message_size > 0 ? message_size : header_bytes + default_payload_size;
  }
};

// One open endpoint. Used from a single thread: the measured loop. Five hooks: send, flush,
// receive, reply and facts; an endpoint that can do more also implements one of the optional
// interfaces below, which the core asks for once, right after opening.
class Endpoint {
public:
  // An endpoint holds sockets, mappings and peers that nobody may share: never copied (the
  // core owns it through a unique_ptr), so no endpoint has to say so again.
  Endpoint() = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  virtual ~Endpoint() = default;

  // Publisher: to every subscriber. Subscriber: back to the publisher. Never blocks for long,
  // never allocates, never throws. A message not sent comes back with its cause.
  virtual SendOutcome send(std::span<const std::byte> message) noexcept = 0;

  // A transport may hold back what send() was given to send several messages in one system
  // call; flush() sends whatever is held. The core calls it after every probe, before it
  // waits, and at the end of each phase, so batching never delays a latency sample.
  virtual SendOutcome flush() noexcept { return {}; }

  // Hands waiting messages to the sink (at most a small batch). With a zero timeout it never
  // blocks, so the core can busy-poll; otherwise it waits up to `timeout` for the first one.
  virtual ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept = 0;

  // Answers the sender of a delivered message, at any time after its delivery, with a control
  // message (never data). keep_unadopted: to that sender alone, without making it a peer; the
  // message is no larger than the one it answers. adopt: the sender becomes a peer, and the
  // message goes as send() sends it. A transport that cannot address one peer
  // (Capabilities::addresses_peers_one_by_one false) sends as send() does, to everyone on the
  // medium, where the sender is too, and has nobody to adopt (adopted: true).
  virtual ReplyOutcome reply(PeerHandle /*sender*/, std::span<const std::byte> message,
                             PeerFate fate) noexcept
  {
    return {send(message), fate == PeerFate::adopt};
  }

  // What it is, what it was granted and what it can do (EndpointFacts::capabilities, fixed
  // from opening on). Read after opening and at the end of a run; may allocate.
  virtual EndpointFacts facts() const = 0;
};

// ---- Optional interfaces: an endpoint implements one beside Endpoint when it can do more.
// The core asks for each once (dynamic_cast), right after the endpoint opens; an endpoint
// that does not implement one simply goes without.

// Waiting for room: an endpoint whose send() was back-pressured can sleep in the kernel until
// it could take a message again (a socket turns writable). The core uses it under
// --wait-strategy block and poll-then-block, as a blocking sender's send() would sleep;
// without it, the core sleeps in a short receive instead.
class RoomWaiter {
public:
  virtual ~RoomWaiter() = default;

  // Waits at most `timeout`. Never allocates.
  virtual RoomWait wait_for_room(Nanoseconds timeout) noexcept = 0;
};

// A payload that never changes: an endpoint that can send the data messages' payload from
// copies of its own, and so not copy it per message (ZeroMQ lends buffers holding it).
class PayloadKeeper {
public:
  virtual ~PayloadKeeper() = default;

  // Called by the core once, before the first data message, with the payload every data
  // message ends with: bytes at that place, never rewritten while the endpoint lives (the core
  // rewrites only the header in front of them). From then on, a message given to send() that
  // ends where these bytes end is a data message made of a header and this payload; any other
  // message is sent as usual. Called at setup, so it may allocate; throws TransportError when
  // it cannot.
  virtual void keep_payload(std::span<const std::byte> payload) = 0;
};

// Sending to one peer: an endpoint that addresses its peers one by one can send a data message
// to one of them alone. The core uses it under --fanout round-robin, where each data message
// goes to one subscriber in turn (as RMR's round-robin and NNG's push0 deal them), and counts
// what it sent to each, so each subscriber's loss is known.
class PeerSender {
public:
  virtual ~PeerSender() = default;

  // Sends `message` as send() would, but to the adopted peer `peer` names alone (a handle the
  // core adopted with Endpoint::reply). A peer that is gone (its connection broke, its queue was
  // removed) counts as sent: nobody hears it, and the core charges it to that subscriber as
  // loss, as send() does for a peer it skipped. Never allocates, never throws.
  virtual SendOutcome send_to(PeerHandle peer, std::span<const std::byte> message) noexcept = 0;
};

// Dealing: an endpoint whose medium deals each message to one subscriber of its own choosing
// (NNG's push0 hands it to the next connection ready for one). The core uses it under --fanout
// round-robin where the transport has no PeerSender: it sends every data message, and END,
// through deal(), and every other control message through send(), which must still reach
// every subscriber. Since the publisher cannot know who got what, loss is counted in total:
// what was sent against what all subscribers received.
class MessageDealer {
public:
  virtual ~MessageDealer() = default;

  // Sends `message` to one subscriber, as the medium picks it; back-pressured, failed and
  // "nobody there" (counts as sent) as for send(). A subscriber's data and END come through
  // the same connection in order, so an END reaches it after everything dealt to it before.
  // Never allocates, never throws.
  virtual SendOutcome deal(std::span<const std::byte> message) noexcept = 0;
};

// Lending: the transport lends the memory an outgoing message is written into.
// A transport whose medium is memory (iceoryx's chunks, the shm ring's slots) can hand the core
// the very bytes a message will be read from, so the core writes its header (and the payload,
// when it must) there and nothing is copied again; as Aeron's tryClaim/commit and iceoryx's
// loan/publish. The core uses the lender for data messages only; control messages keep going
// through send().

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

// Implemented beside Endpoint by the endpoint that lends. Used from the same single
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

} // namespace netprof
