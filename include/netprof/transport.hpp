#pragma once

// The seam between the core and every transport. Transports move bytes; the core measures.
// A transport never decodes headers, counts sequence numbers or keeps statistics.

#include <netprof/clock.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace netprof {

enum class Role { publisher, subscriber };

// Receives every message an endpoint takes in. Owned by the core.
class MessageSink {
public:
  virtual ~MessageSink() = default;

  // Called once per received message, on the thread inside Endpoint::receive, before it
  // returns. The bytes are valid only for the duration of the call, so the core copies what
  // it keeps. The sink may call Endpoint::send from here (subscribers echo probes this way).
  virtual void on_message(std::span<const std::byte> message) noexcept = 0;
};

enum class SendResult {
  sent, // handed to the transport for every peer it knows (none yet counts as sent: the
        // message is simply not heard; a peer that was skipped shows up as loss)
  back_pressured, // the transport would have to wait; the message was not sent
  failed          // a transport error; the message was not sent
};

enum class ReceiveResult {
  received,  // at least one message went to the sink
  timed_out, // nothing arrived within the timeout (or nothing was waiting, for timeout zero)
  failed     // a transport error; the core ends the run
};

// What an endpoint tells the report about itself after opening.
struct EndpointFacts {
  std::string transport;                   // registry name, e.g. "udp"
  std::vector<std::string> local_addresses; // what this process bound or joined
  std::vector<std::string> peer_addresses;  // where it sends
  std::size_t max_message_size = 0;        // largest message send() accepts, in bytes
  std::string size_hint;                   // how to carry more, e.g. "a larger -q makes a larger ring"
  std::size_t requested_buffer_bytes = 0;  // -q as given (0: OS default)
  std::size_t granted_send_buffer_bytes = 0;    // usable bytes, as the user would request
  std::size_t granted_receive_buffer_bytes = 0; // them (Linux reports twice that)
  std::vector<std::string> notes;          // e.g. "receive buffer clamped by net.core.rmem_max"
};

// What the transport knows of the message it is delivering: a transport that splits messages
// into datagrams, or adds framing of its own, says so here, so the report can show datagrams
// and wire bytes beside messages and payload bytes.
struct DeliveryFacts {
  std::uint32_t datagrams = 1;
  std::size_t wire_bytes = 0; // bytes the transport carried for it; 0: the message's own size
};

// What the core asks of a transport when opening an endpoint.
struct EndpointRequest {
  Role role = Role::publisher;
  std::uint32_t id = 0;
  std::size_t queue_length_bytes = 0; // -q: socket buffers or ring capacity; 0 = default
  std::size_t message_size = 0;       // the data messages' size (header + -s), for sizing queues
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

  // Called by the core from inside MessageSink::on_message, while a hello from a new
  // subscriber is being delivered (one receive() may deliver several senders' messages, so
  // "last" means the one being delivered now): a transport that addresses peers one by one
  // starts sending to its source. Shared media (multicast, shared memory) ignore it.
  virtual void add_peer_from_last_message() noexcept {}

  // Called by the core once, before the first data message, with the payload every data
  // message will end with: the same bytes at the same address, never rewritten while the
  // endpoint lives (the core rewrites only the header in front of it). A transport may then
  // send data messages without copying the payload again (ZeroMQ lends buffers holding a copy
  // of it). Other messages (hellos, END, counters) end with other bytes and go as usual.
  // Called at setup, so it may allocate; throws TransportError when it cannot.
  virtual void announce_payload(std::span<const std::byte> /*payload*/) {}

  // Valid only inside MessageSink::on_message: facts of the message being delivered.
  virtual DeliveryFacts last_delivery() const noexcept { return {}; }

  virtual EndpointFacts facts() const = 0;
};

} // namespace netprof
