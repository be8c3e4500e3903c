#pragma once

// The endpoint every stream transport shares (tcp; uds in both its socket types). A publisher
// listens and accepts one connection per subscriber, and strangers too: each connection is a
// sender the core may adopt (PeerHandle) and reply to, and only adopted ones get data. A
// subscriber dials its publisher, again whenever the connection is gone, until its run ends.
// Sockets never block: a connection whose kernel buffer is full queues what it already took
// on (pending_output.hpp), and send() reports back-pressure instead of waiting.
//
// A connection that breaks the framing, announces a message beyond what its reader takes, or
// ends in the middle of a message is closed and counted, and never costs more memory than its
// limit: the report names it. For a subscriber, whose only connection is its publisher's,
// that ends the run (ReceiveResult::failed); for a publisher, the run goes on without it.

#include "connection.hpp"
#include "stream_sockets.hpp"

#include "common/timed_poll.hpp"

#include <netprof/transport.hpp>

#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof::stream {

struct StreamLimits {
  std::size_t max_message_size = 0; // send() takes no more
  std::size_t read_limit = 0;       // a connection sending more is closed
  std::size_t expected_message = 0; // the data messages' size, to size buffers up front; 0: none
  std::size_t max_connections = 1;  // publisher: subscribers and strangers at once
};

struct StreamSetup {
  std::string transport; // registry name: "tcp", "uds"
  Role role = Role::publisher;
  Framing framing = Framing::length_prefixed;
  std::string publisher_address; // where the publisher listens, and subscribers dial
  StreamLimits limits;
  std::vector<std::string> notes;
  std::string size_hint;
  std::unique_ptr<StreamSockets> sockets; // last: the limits are read from it before it moves
};

// Connections closed other than by the core's choice, for the report.
struct ClosedConnections {
  std::uint64_t by_peer = 0;     // between messages: a subscriber that left, a restart
  std::uint64_t mid_frame = 0;   // in the middle of a message
  std::uint64_t not_a_frame = 0; // not netprof's framing
  std::uint64_t too_large = 0;   // a message beyond the reader's limit
  std::uint64_t failed = 0;      // a socket error (reset), or no memory for a message
  std::uint64_t evicted = 0;     // strangers closed to make room for a new connection
  std::uint64_t refused = 0;     // closed at once: every slot held by an adopted peer
  std::string first_hostile;     // the first mid-frame, unframed or too large one, named
  std::uint64_t hostile() const noexcept { return mid_frame + not_a_frame + too_large; }
};

class StreamEndpoint final : public Endpoint, public PeerSender {
public:
  // Messages handed to the sink per receive(): enough to amortise the calls, few enough that
  // the core gets control back often.
  static constexpr std::size_t receive_batch = 64;

  // Listens (publisher) or dials at once (subscriber, waiting briefly for a connect in
  // progress). Throws TransportError when the system refuses the listener, or memory for the
  // endpoint's buffers.
  explicit StreamEndpoint(StreamSetup setup);
  // A subscriber closes its connection after its publisher does (close_after_peer), for a
  // moment at most, so that the publisher sees a clean end, not a reset.
  ~StreamEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  // A publisher answers one connection, or adopts it (reserving its room for held-back
  // output); a subscriber's only connection is its publisher's.
  ReplyOutcome reply(PeerHandle sender, std::span<const std::byte> message,
                     PeerFate fate) noexcept override;
  EndpointFacts facts() const override;
  // Publisher: to one adopted connection alone (--fanout round-robin), held back there as
  // send() holds a message back for a full socket.
  SendOutcome send_to(PeerHandle peer, std::span<const std::byte> message) noexcept override;

private:
  enum class Pass { nothing, delivered, failed, interrupted };

  // Reading (stream_endpoint.cpp).
  Pass read_readable(MessageSink& sink) noexcept;
  Pass poll_once(MessageSink& sink, Nanoseconds timeout) noexcept;
  // Spinning with direct reads: accepts a waiting connection, at most once per interval.
  Pass look_for_connections(MessageSink& sink) noexcept;
  std::size_t gather_poll_set() noexcept;
  void settle(Connection& connection, const ReadReport& report) noexcept;
  bool publisher_lost() const noexcept { return !m_publisher && !m_publisher_fault.empty(); }

  // The connection table (stream_connections.cpp).
  void accept_waiting() noexcept;
  // accept_waiting() after a look that found someone in the listener's backlog.
  void accept_if_waiting() noexcept;
  void open_connection(std::size_t slot, transport_common::UniqueFd fd) noexcept;
  std::optional<std::size_t> free_slot() noexcept;
  std::optional<std::size_t> evict_oldest_stranger() noexcept; // its slot, now free
  // Closes the connections a read or a write marked broken. It runs after every read and
  // usually finds none: that look is inline, the closing (close_broken) is not.
  void close_finished() noexcept
  {
    for (const std::uint16_t slot : m_open) {
      if (m_slots[slot].broken) {
        close_broken();
        return;
      }
    }
  }
  void close_broken() noexcept;
  void close_connection(std::size_t open_index) noexcept;
  void count_ending(const Connection& connection) noexcept;
  // send()'s other cases, out of line: a subscriber's to its publisher, and a publisher's with
  // other than one connection (the one-connection publisher's is a stream's every message).
  [[gnu::noinline]] SendOutcome send_to_publisher(std::span<const std::byte> message) noexcept;
  [[gnu::noinline]] SendOutcome send_to_each(std::span<const std::byte> message) noexcept;
  Connection* find(PeerHandle handle) noexcept;
  bool adopt(PeerHandle sender) noexcept; // publisher: data goes to it from now on
  // PeerHandle: the connection's serial above the slot's 16 bits. Serials start at 1 and are
  // never reused, so a handle kept after its connection closed names no one, even when its
  // slot holds another connection.
  static constexpr std::uint64_t slot_bits = 16;
  static constexpr std::uint64_t slot_mask = (std::uint64_t{1} << slot_bits) - 1;
  PeerHandle handle_of(std::size_t slot) const noexcept
  {
    return PeerHandle{(m_slots[slot].serial << slot_bits) | slot};
  }
  // Writes what the connections hold queued; false while some of it is still held. It runs
  // before every receive and usually finds nothing held: that look is inline.
  bool flush_pending() noexcept
  {
    for (const std::uint16_t slot : m_open) {
      if (!m_slots[slot].broken && !m_slots[slot].pending.empty()) {
        return flush_held();
      }
    }
    return true;
  }
  bool flush_held() noexcept;

  // A wait on the one connection: one blocking read (blocking_read.cpp).
  // Waits that leave a read at least this long begin with one blocking read; SO_RCVTIMEO counts
  // in scheduler ticks, so one that finds nothing may end two ticks late: the read is two ticks
  // shorter than the wait (tick_bounded_read.hpp), ppoll's exact timer waits the rest, and
  // shorter waits are ppoll's alone.
  static constexpr Nanoseconds shortest_blocking_read = std::chrono::milliseconds(10);
  // Inline: a blocking subscriber asks for every message.
  bool reads_blocking() noexcept
  {
    if (m_open.size() != 1) {
      return false;
    }
    const Connection& connection = m_slots[m_open.front()];
    if (connection.broken || !connection.pending.empty()) {
      return false;
    }
    if (m_publisher && connection.adopted && connection.serial != m_blocking_serial) {
      make_reads_blocking(); // a publisher's one subscriber: from its adoption on
    }
    return connection.serial == m_blocking_serial;
  }
  ReceiveResult receive_blocking(MessageSink& sink, Nanoseconds timeout) noexcept;
  void make_reads_blocking() noexcept;
  // A publisher reading its one connection: accepts what waits at the listener when due. False
  // when that opened another connection (the wait goes to ppoll then).
  bool lobby_checked() noexcept { return !m_publisher || look_in_lobby(); }
  bool look_in_lobby() noexcept;

  // A subscriber's way to its publisher (stream_connections.cpp).
  void dial_if_due(Clock::time_point now) noexcept;
  void finish_dial() noexcept;
  void connected_through(transport_common::UniqueFd fd) noexcept;
  bool connected() const noexcept { return !m_open.empty(); }

  // The report (stream_facts.cpp).
  std::vector<std::string> connection_notes() const;
  std::vector<std::string> diagnoses() const;
  std::string accept_trouble() const;

  std::string m_transport;
  const bool m_publisher;
  const Framing m_framing;
  const StreamLimits m_limits;
  std::unique_ptr<StreamSockets> m_sockets;
  transport_common::UniqueFd m_listener;
  const std::string m_publisher_address;
  std::vector<std::string> m_notes;
  const std::string m_size_hint;

  std::vector<Connection> m_slots;        // every connection's place, allocated once
  std::vector<std::uint16_t> m_open;      // the slots that hold a connection
  std::unique_ptr<std::byte[]> m_records; // kernel_records: what one record is read into
  std::vector<pollfd> m_poll;             // what poll_once waits on, reserved once
  transport_common::TimedPoll m_wait;     // poll_once's timer
  std::vector<int> m_poll_owner;          // per entry: a slot, or listener_entry / dial_entry
  std::uint64_t m_next_serial = 1;
  std::uint32_t m_idle_polls = 0;
  std::size_t m_read_start = 0; // where the next pass starts, so that no connection starves

  std::vector<std::string> m_adopted_peers; // for the report: the first ones, at most a few
  std::size_t m_adopted = 0;
  std::size_t m_peak_adopted = 0;
  std::uint64_t m_accepted = 0;
  ClosedConnections m_closed;
  std::uint64_t m_accept_errors = 0;
  int m_accept_error = 0;
  Clock::time_point m_accept_paused_until{};
  Clock::time_point m_next_accept_look{}; // a busy-polling publisher's next accept()

  transport_common::UniqueFd m_dialing; // a connect in progress
  Clock::time_point m_next_dial{};
  std::uint64_t m_dials_failed = 0;
  int m_dial_error = 0;
  std::uint64_t m_connections_made = 0;
  // The one connection (by serial) whose descriptor is in blocking mode, every other call on
  // it passing MSG_DONTWAIT, and the SO_RCVTIMEO last set on it (blocking_read.cpp).
  std::uint64_t m_blocking_serial = 0;
  Nanoseconds m_read_timeout{0};
  bool m_blocking_refused = false;    // the kernel refused it once: ppoll from then on
  std::uint32_t m_blocking_reads = 0; // publisher: counts to its next look at the listener
  bool m_blocking_read_idle = false;  // the last blocking read waited in vain
  std::string m_own_end;              // subscriber: its end of the last connection
  std::string m_publisher_fault;      // subscriber: why its publisher's connection ended the run
};

} // namespace netprof::stream
