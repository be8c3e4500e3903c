// A subscriber waits for its publisher's next message in one blocking read, as a blocking
// program does: a non-blocking read, a poll and a read again cost two more system calls per
// message (5% of a blocking loopback round trip, measured with bench/bare_udp_pingpong).
// A publisher with one subscriber, adopted, waits for its echoes the same way; its listener is
// looked at between reads (every lobby_interval-th, and after each read that waited in vain),
// so a newcomer's connection waits in the backlog for at most that long.

#include "stream_endpoint.hpp"

#include <fcntl.h>
#include <sys/socket.h>

namespace netprof::stream {

namespace {

constexpr std::uint32_t lobby_interval = 16;

} // namespace

void StreamEndpoint::make_reads_blocking() noexcept
{
  if (m_open.size() != 1 || m_blocking_refused) {
    return; // several connections are waited on at once, in ppoll
  }
  const Connection& connection = m_slots[m_open.front()];
  const int flags = fcntl(connection.fd.get(), F_GETFL);
  if (flags >= 0 && fcntl(connection.fd.get(), F_SETFL, flags & ~O_NONBLOCK) == 0) {
    m_blocking_serial = connection.serial;
    m_read_timeout = Nanoseconds::zero();
  } else {
    m_blocking_refused = true;
  }
}

bool StreamEndpoint::look_in_lobby() noexcept
{
  if (!m_listener.valid() || (++m_blocking_reads % lobby_interval != 0 && !m_blocking_read_idle)) {
    return true;
  }
  if (Clock::now() >= m_accept_paused_until) {
    accept_if_waiting();
  }
  return m_open.size() == 1;
}

ReceiveResult StreamEndpoint::receive_blocking(MessageSink& sink, Nanoseconds timeout) noexcept
{
  const std::uint16_t slot = m_open.front();
  Connection& connection = m_slots[slot];
  if (timeout != m_read_timeout) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(timeout - seconds);
    const timeval wait{static_cast<time_t>(seconds.count()),
                       static_cast<suseconds_t>(micros.count())};
    if (setsockopt(connection.fd.get(), SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0) {
      m_blocking_serial = 0; // waits in ppoll from now on
      m_blocking_refused = true;
      return ReceiveResult::timed_out;
    }
    m_read_timeout = timeout;
  }
  const ReadReport report =
      m_framing == Framing::length_prefixed
          ? read_frames(connection, sink, handle_of(slot), receive_batch, true)
          : read_records(connection, {m_records.get(), m_limits.read_limit}, sink, handle_of(slot),
                         receive_batch, true);
  connection.readable = report.delivered == receive_batch || report.more;
  m_blocking_read_idle = report.delivered == 0;
  if (report.end != ReadEnd::open) {
    settle(connection, report);
  }
  close_finished();
  if (publisher_lost()) {
    return ReceiveResult::failed;
  }
  return report.delivered > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

} // namespace netprof::stream
