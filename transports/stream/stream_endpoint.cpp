#include "stream_endpoint.hpp"

#include "common/socket_wait.hpp"
#include "common/tick_bounded_read.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <ctime>
#include <new>

// Sending and receiving. The connection table and dialling are in stream_connections.cpp, the
// report in stream_facts.cpp.

namespace netprof::stream {

namespace {

// Up to this many connections, receive() tries each one's socket directly before it polls: a
// recv that finds nothing costs what a zero-timeout poll costs, and one that finds a message
// saves the poll. Beyond it, one poll says which to read.
constexpr std::size_t direct_reads = 4;
// A busy-polling publisher that reads its connections directly looks for new ones (a ppoll on
// the listener, accept_if_waiting) at most once per accept_look_interval, checking the clock
// every housekeeping_interval calls that found nothing: each look sits in the spin loop that
// echoes arrive in. (An accept4 a look, about every 20 us, measured a median 1.50x a bare
// program's RTT p99 over Unix seqpacket; issue 29.) A new connection waits at most a
// millisecond more.
constexpr std::uint32_t housekeeping_interval = 64;
constexpr auto accept_look_interval = std::chrono::milliseconds(1);
// How long a subscriber's first connect may take before open() returns (it goes on after).
constexpr auto first_dial_wait = std::chrono::seconds(1);
// The report names this many adopted peers at most.
constexpr std::size_t peers_named = 64;

constexpr SendOutcome pushed_back{SendResult::back_pressured, SendCause::would_block};
constexpr SendOutcome failure{SendResult::failed, SendCause::error};

SendOutcome as_send_outcome(WriteOutcome outcome) noexcept
{
  switch (outcome) {
  case WriteOutcome::written:
  case WriteOutcome::queued:
    return {};
  case WriteOutcome::blocked:
    return pushed_back;
  case WriteOutcome::failed:
    break;
  }
  return failure;
}

} // namespace

StreamEndpoint::StreamEndpoint(StreamSetup setup)
    : m_transport(std::move(setup.transport)), m_publisher(setup.role == Role::publisher),
      m_framing(setup.framing), m_limits(setup.limits), m_sockets(std::move(setup.sockets)),
      m_publisher_address(std::move(setup.publisher_address)), m_notes(std::move(setup.notes)),
      m_size_hint(std::move(setup.size_hint))
{
  if (m_publisher) {
    m_listener = m_sockets->listen();
    m_notes.insert(m_notes.begin(), m_sockets->notes().begin(), m_sockets->notes().end());
  }
  try {
    const std::size_t slots = m_publisher ? std::max<std::size_t>(m_limits.max_connections, 1) : 1;
    m_slots.resize(slots);
    for (Connection& slot : m_slots) {
      slot.pending = PendingOutput(m_framing == Framing::kernel_records);
    }
    m_open.reserve(slots);
    m_poll.reserve(slots + 3); // the listener, a dial, the connections, the wait's timer
    m_poll_owner.reserve(slots + 2);
    if (m_framing == Framing::kernel_records) {
      // Not zeroed: the kernel writes it, and pages nobody touches cost no memory.
      m_records.reset(new std::byte[m_limits.read_limit]);
    }
  } catch (const std::bad_alloc&) {
    throw TransportError(m_transport + ": not enough memory for " +
                         std::to_string(m_limits.max_connections) + " connections' buffers");
  }
  if (!m_publisher) {
    dial_if_due(Clock::now());
    if (m_dialing.valid()) {
      pollfd entry{m_dialing.get(), POLLOUT, 0};
      const timespec wait = transport_common::timespec_of(first_dial_wait);
      if (ppoll(&entry, 1, &wait, nullptr) > 0) {
        finish_dial();
      }
    }
  }
}

SendOutcome StreamEndpoint::send(std::span<const std::byte> message) noexcept
{
  if (message.size() > m_limits.max_message_size) {
    return failure;
  }
  if (!m_publisher) {
    return send_to_publisher(message);
  }
  if (m_open.size() != 1) {
    return send_to_each(message);
  }
  // One subscriber, the usual case, without send_to_each's two passes (what they do for one
  // connection, write_message does): a stream's every message comes here, so the rest of
  // send() is out of line.
  Connection& connection = m_slots[m_open.front()];
  if (!connection.adopted || connection.broken) {
    return {};
  }
  return write_message(connection, message, m_framing, false) == WriteOutcome::blocked
             ? pushed_back
             : SendOutcome{}; // one that broke is gone, as in send_to_each
}

SendOutcome StreamEndpoint::send_to_publisher(std::span<const std::byte> message) noexcept
{
  if (!connected() && m_dialing.valid()) {
    finish_dial();
  }
  if (!connected()) {
    // While a connect is under way the message can go in a moment; without one, nobody
    // hears it (the subscriber dials again from receive()).
    return m_dialing.valid() ? SendOutcome{SendResult::back_pressured, SendCause::connecting}
                             : SendOutcome{};
  }
  return as_send_outcome(write_message(m_slots[m_open.front()], message, m_framing, false));
}

SendOutcome StreamEndpoint::send_to_each(std::span<const std::byte> message) noexcept
{
  // All or nothing: every adopted connection takes the message now or queues it, or none gets
  // it and the core tries again.
  const std::size_t frame =
      message.size() + (m_framing == Framing::length_prefixed ? frame_header_size : 0);
  for (const std::uint16_t slot : m_open) {
    Connection& connection = m_slots[slot];
    if (!connection.adopted || connection.broken || connection.pending.empty()) {
      continue;
    }
    if (connection.pending.write_to(connection.fd.get()) == PendingOutput::Flush::failed) {
      mark_broken(connection, ReadEnd::failed, errno);
    } else if (!connection.pending.has_room(frame)) {
      return pushed_back; // its socket took no more and its queue is full
    }
  }
  bool taken = false;
  for (const std::uint16_t slot : m_open) {
    Connection& connection = m_slots[slot];
    if (!connection.adopted || connection.broken) {
      continue;
    }
    const WriteOutcome outcome = write_message(connection, message, m_framing, taken);
    if (outcome == WriteOutcome::written || outcome == WriteOutcome::queued) {
      taken = true;
    } else if (outcome == WriteOutcome::blocked && !taken) {
      return pushed_back;
    } else if (outcome == WriteOutcome::blocked) {
      // Others have it and this one could not queue it (no memory): it would miss a message
      // in the middle of its stream, so it is cut off instead.
      mark_broken(connection, ReadEnd::out_of_memory, ENOMEM);
    }
  }
  // A connection that broke is gone for the core as a subscriber that left: not a failure.
  return {};
}

SendOutcome StreamEndpoint::send_to(PeerHandle peer, std::span<const std::byte> message) noexcept
{
  if (!m_publisher) {
    return send(message); // its publisher's is its only connection
  }
  if (message.size() > m_limits.max_message_size) {
    return failure;
  }
  Connection* connection = find(peer);
  if (connection == nullptr || !connection->adopted || connection->broken) {
    return {}; // gone: as send() skips a connection that broke, nobody hears it
  }
  const WriteOutcome outcome = write_message(*connection, message, m_framing, false);
  return outcome == WriteOutcome::failed ? SendOutcome{} : as_send_outcome(outcome);
}

bool StreamEndpoint::flush_held() noexcept
{
  bool all_out = true;
  for (const std::uint16_t slot : m_open) {
    Connection& connection = m_slots[slot];
    if (connection.broken || connection.pending.empty()) {
      continue;
    }
    const PendingOutput::Flush flushed = connection.pending.write_to(connection.fd.get());
    if (flushed == PendingOutput::Flush::failed) {
      mark_broken(connection, ReadEnd::failed, errno);
    } else if (flushed == PendingOutput::Flush::blocked) {
      all_out = false;
    }
  }
  return all_out;
}

SendOutcome StreamEndpoint::flush() noexcept
{
  return flush_pending() ? SendOutcome{} : pushed_back;
}

ReplyOutcome StreamEndpoint::reply(PeerHandle sender, std::span<const std::byte> message,
                                   PeerFate fate) noexcept
{
  if (!m_publisher) {
    return {send(message), fate == PeerFate::adopt}; // its publisher's is its only connection
  }
  if (fate == PeerFate::adopt) {
    const bool adopted = adopt(sender);
    return {send(message), adopted};
  }
  Connection* connection = find(sender);
  if (connection == nullptr || message.size() > m_limits.max_message_size) {
    return {failure, false};
  }
  return {as_send_outcome(write_message(*connection, message, m_framing, false)), false};
}

bool StreamEndpoint::adopt(PeerHandle sender) noexcept
{
  Connection* connection = find(sender);
  if (connection == nullptr) {
    return false; // gone since its message came
  }
  if (!connection->adopted) {
    try {
      // Room for one data message behind a cut-short one, so a full socket costs no
      // allocation while measuring.
      connection->pending.reserve(std::max<std::size_t>(m_limits.expected_message, 4096) +
                                  frame_header_size);
      if (m_adopted_peers.size() < peers_named) {
        m_adopted_peers.push_back(connection->peer);
      }
    } catch (const std::bad_alloc&) {
      return false;
    }
    connection->adopted = true;
    m_peak_adopted = std::max(m_peak_adopted, ++m_adopted);
  }
  return true;
}

ReceiveResult StreamEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const auto result = [](Pass pass) {
    return pass == Pass::delivered ? ReceiveResult::received
           : pass == Pass::failed  ? ReceiveResult::failed
                                   : ReceiveResult::timed_out;
  };
  close_finished();
  if (publisher_lost()) {
    return ReceiveResult::failed;
  }
  flush_pending();
  const Nanoseconds read_for = transport_common::tick_bounded_read_timeout(timeout);
  if (read_for >= shortest_blocking_read && reads_blocking() && lobby_checked()) {
    const Clock::time_point start = Clock::now();
    const ReceiveResult blocking = receive_blocking(sink, read_for);
    if (blocking != ReceiveResult::timed_out || !m_blocking_read_idle || !reads_blocking()) {
      return blocking;
    }
    // The read ended early so as to end in time (tick_bounded_read.hpp): the rest below, in
    // ppoll's exact timer.
    timeout -= Clock::now() - start;
  }
  if (m_open.size() <= direct_reads) {
    for (const std::uint16_t slot : m_open) {
      m_slots[slot].readable = true;
    }
  }
  Pass pass = read_readable(sink);
  if (pass == Pass::nothing && timeout <= Nanoseconds::zero()) {
    if (m_open.size() > direct_reads || !connected()) {
      pass = poll_once(sink, Nanoseconds::zero()); // which to read; or accept, dial
    } else if (m_listener.valid() && ++m_idle_polls % housekeeping_interval == 0) {
      pass = look_for_connections(sink);
    }
  }
  if (pass != Pass::nothing || timeout <= Nanoseconds::zero()) {
    close_finished();
    return publisher_lost() ? ReceiveResult::failed : result(pass);
  }
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    pass = poll_once(sink, deadline - Clock::now());
    close_finished();
    if (publisher_lost()) {
      return ReceiveResult::failed;
    }
    if (pass != Pass::nothing || Clock::now() >= deadline) {
      return result(pass);
    }
  }
}

StreamEndpoint::Pass StreamEndpoint::look_for_connections(MessageSink& sink) noexcept
{
  const auto now = Clock::now();
  if (now < m_accept_paused_until || now < m_next_accept_look) {
    return Pass::nothing;
  }
  m_next_accept_look = now + accept_look_interval;
  accept_if_waiting();
  return read_readable(sink);
}

StreamEndpoint::Pass StreamEndpoint::read_readable(MessageSink& sink) noexcept
{
  Pass pass = Pass::nothing;
  std::size_t budget = receive_batch;
  const std::size_t count = m_open.size();
  m_read_start = count > 0 ? (m_read_start + 1) % count : 0;
  for (std::size_t i = 0; i < count && budget > 0; ++i) {
    const std::size_t slot = m_open[(m_read_start + i) % count];
    Connection& connection = m_slots[slot];
    if (!connection.readable || connection.broken) {
      continue;
    }
    const ReadReport report = m_framing == Framing::length_prefixed
                                  ? read_frames(connection, sink, handle_of(slot), budget)
                                  : read_records(connection, {m_records.get(), m_limits.read_limit},
                                                 sink, handle_of(slot), budget);
    if (report.delivered > 0) {
      pass = Pass::delivered;
    }
    // Cut short by the batch, or a record read alone: more may be waiting, in the socket or
    // already in the reader.
    connection.readable = report.delivered == budget || report.more;
    budget -= report.delivered;
    if (report.end != ReadEnd::open) {
      settle(connection, report);
    }
  }
  return pass;
}

std::size_t StreamEndpoint::gather_poll_set() noexcept
{
  m_poll.clear();
  m_poll_owner.clear();
  if (m_listener.valid() && Clock::now() >= m_accept_paused_until) {
    m_poll.push_back({m_listener.get(), POLLIN, 0});
    m_poll_owner.push_back(-1);
  }
  if (m_dialing.valid()) {
    m_poll.push_back({m_dialing.get(), POLLOUT, 0});
    m_poll_owner.push_back(-2);
  }
  for (const std::uint16_t slot : m_open) {
    const Connection& connection = m_slots[slot];
    if (connection.broken) {
      continue;
    }
    const short events = static_cast<short>(POLLIN | (connection.pending.empty() ? 0 : POLLOUT));
    m_poll.push_back({connection.fd.get(), events, 0});
    m_poll_owner.push_back(slot);
  }
  const std::size_t count = m_poll.size();
  m_poll.push_back({}); // the wait's timer
  return count;
}

StreamEndpoint::Pass StreamEndpoint::poll_once(MessageSink& sink, Nanoseconds timeout) noexcept
{
  Nanoseconds sleep = timeout;
  if (!m_publisher && !connected() && !m_dialing.valid()) {
    const auto now = Clock::now();
    dial_if_due(now);
    if (!connected() && !m_dialing.valid()) {
      sleep = std::min(sleep, std::chrono::duration_cast<Nanoseconds>(m_next_dial - now));
    }
  }
  const std::size_t count = gather_poll_set();
  const int ready = m_wait.wait(m_poll, sleep);
  if (ready < 0) {
    return errno == EINTR ? Pass::interrupted : Pass::failed;
  }
  for (std::size_t i = 0; i < count && ready > 0; ++i) {
    const short events = m_poll[i].revents;
    if (events == 0) {
      continue;
    }
    if (m_poll_owner[i] == -1) {
      accept_waiting();
    } else if (m_poll_owner[i] == -2) {
      finish_dial();
    } else {
      Connection& connection = m_slots[static_cast<std::size_t>(m_poll_owner[i])];
      if ((events & POLLOUT) != 0 && !connection.pending.empty() &&
          connection.pending.write_to(connection.fd.get()) == PendingOutput::Flush::failed) {
        mark_broken(connection, ReadEnd::failed, errno);
      }
      connection.readable = connection.readable || (events & (POLLIN | POLLHUP | POLLERR)) != 0;
    }
  }
  return read_readable(sink);
}

} // namespace netprof::stream
