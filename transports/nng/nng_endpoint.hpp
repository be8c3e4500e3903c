#pragma once

#include "nng_address.hpp"
#include "nng_socket.hpp"

#include <netprof/transport.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace netprof::nng_parts {

// --nng-pattern: which NNG protocols carry the data.
enum class Pattern { pubsub, pushpull, pair };

const char* pattern_name(Pattern pattern) noexcept;

// What the transport derived from the command line for one endpoint.
struct EndpointSettings {
  Role role = Role::publisher;
  Pattern pattern = Pattern::pubsub;
  NngAddress data;                    // the publisher listens here, subscribers dial
  std::size_t queue_length_bytes = 0; // -q; 0: netprof's default queue of messages
  std::size_t message_bytes = 0;      // header + payload, to turn -q into messages
  std::size_t header_bytes = 0;
  // What the publisher reads at most (EndpointRequest::largest_control_message); 0: not stated.
  std::size_t largest_control_message = 0;
  // pushpull publisher under --fanout round-robin: push0 deals the data to every subscriber
  // connected, and what must reach all of them goes over the control channel.
  bool round_robin = false;
};

// NNG's queues hold messages, not bytes: -q bytes' worth, within what NNG allows (8192), and
// never so few that a burst is lost; 0 gives a default.
int queue_messages(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept;

// Data one way, the back channel (hellos, echoes, final counters) the other.
// pubsub:   publisher pub0 listens at --nng, and pull0 at the back channel's address (the next
//           tcp port, or the ipc path + ".back"); a subscriber dials both, with sub0 and push0.
// pushpull: the same with push0 -> pull0 for the data, and a control channel, pub0 -> sub0 at
//           the port after the back channel's (or the path + ".ctl"). One subscriber, with
//           every message over push0; or under --fanout round-robin any number, push0 dealing
//           each data message (and END, which so follows a subscriber's share) to the next
//           ready, and the rest of the control messages going to all over pub0.
// pair:     one pair0 socket each, both ways over one connection: one subscriber only.
// Each connection is a pipe with its own id, which names the sender of what arrives on it
// (PeerHandle), so the core's address proof binds each cookie to one connection. Replies and
// data go out as the pattern sends (pub0 to every subscriber), so nothing is adopted.
class NngEndpoint final : public Endpoint, public MessageDealer {
public:
  // The largest payload, as for ZeroMQ; what a socket reads is capped by its role.
  static constexpr std::size_t max_payload_size = std::size_t{16} << 20;
  // Messages handed to the sink per receive() that does not wait (a blocking one hands one).
  static constexpr int receive_batch = 32;

  // Opens, listens and dials; throws TransportError when the system refuses.
  explicit NngEndpoint(const EndpointSettings& settings);
  ~NngEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  // Every pattern reaches each subscriber it has by itself: nothing to adopt, but adopting
  // proves the subscriber that holds pair's or push/pull's one place (NngSocket evicts an
  // unproven holder). pub0 cannot pick one pipe, so a reply goes out as send() does, as the
  // seam allows a transport that does not address peers one by one.
  ReplyOutcome reply(PeerHandle sender, std::span<const std::byte> message,
                     PeerFate fate) noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;
  // pushpull under --fanout round-robin: push0 hands it to the next subscriber ready for one.
  SendOutcome deal(std::span<const std::byte> message) noexcept override;

private:
  // Listens (publisher) or dials (subscriber) on each socket; true if a stale ipc socket file was
  // removed on the way.
  bool listen_or_dial();
  void note_setup(Protocol data, Protocol back, bool removed_stale);
  // Hands at most `most` waiting messages to the sink, without waiting; -1 on a socket error.
  int drain(MessageSink& sink, int most) noexcept;
  // One message through the endpoint's own aio, waiting up to `wait` (NNG_DURATION_ZERO: only
  // looks): 0 with `message` set, else NNG's error (NNG_ETIMEDOUT: nothing came).
  int receive_one(nng_duration wait, nng_msg*& message) noexcept;
  void deliver(MessageSink& sink, nng_msg* message) noexcept;
  bool wait_readable(Nanoseconds remaining) noexcept;
  SendOutcome send_over(NngSocket& socket, std::span<const std::byte> message) noexcept;
  // A subscriber's control channel: NNG's thread takes each message into m_control_waiting
  // and wakes a data receive that waits; receive() hands them on first.
  void start_control_receive();
  static void on_control_message(void* self) noexcept;
  bool deliver_control(MessageSink& sink) noexcept;

  Pattern m_pattern;
  bool m_publisher;
  NngAddress m_data_address;
  NngAddress m_back_address; // pubsub and pushpull only
  std::unique_ptr<NngSocket> m_data;
  std::unique_ptr<NngSocket> m_back;    // null for pair
  NngAddress m_control_address;         // pushpull only
  std::unique_ptr<NngSocket> m_control; // pushpull only: pub0 (publisher), sub0 (subscriber)
  bool m_round_robin = false;           // a pushpull publisher that deals the data
  NngSocket* m_sender = nullptr;
  NngSocket* m_receiver = nullptr;
  int m_receive_fd = -1; // NNG_OPT_RECVFD, from the first sub-millisecond wait on
  // Reused by every receive: nng_recvmsg would allocate one per call. Blocking on it is how a
  // plain NNG program waits, and costs less than polling NNG_OPT_RECVFD, which NNG's thread
  // must signal and the next receive clear.
  nng_aio* m_aio = nullptr;
  // The subscriber's control channel (pushpull): messages NNG's thread took, under the mutex;
  // m_control_pending says there are some without taking it on every receive.
  nng_aio* m_control_aio = nullptr;
  std::mutex m_control_mutex;
  std::vector<nng_msg*> m_control_waiting;
  std::vector<nng_msg*> m_control_taken; // swapped with m_control_waiting: no allocation
  std::atomic<bool> m_control_pending{false};
  std::size_t m_max_message_size = 0;
  std::size_t m_receive_limit = 0;
  int m_queue_messages = 0;
  std::size_t m_framing_bytes = 0; // per message on the wire: tcp 8, ipc 9
  std::size_t m_requested_buffer_bytes = 0;
  // Zero-timeout receives in a row that found nothing, since the last send or message.
  int m_empty_looks = 0;
  std::vector<std::string> m_notes;
};

} // namespace netprof::nng_parts
