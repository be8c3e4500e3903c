// A subscriber waits for its publisher's next message in one blocking read, as a blocking
// program does: a non-blocking read, a poll and a read again cost two more system calls per
// message (5% of a blocking loopback round trip, measured with bench/bare_udp_pingpong).

#include "stream_endpoint.hpp"

#include <fcntl.h>
#include <sys/socket.h>

namespace netprof::stream {

void StreamEndpoint::make_reads_blocking() noexcept
{
  if (m_publisher || m_open.size() != 1) {
    return; // a publisher waits on its listener and every connection at once
  }
  const Connection& connection = m_slots[m_open.front()];
  const int flags = fcntl(connection.fd.get(), F_GETFL);
  if (flags >= 0 && fcntl(connection.fd.get(), F_SETFL, flags & ~O_NONBLOCK) == 0) {
    m_blocking_serial = connection.serial;
    m_read_timeout = Nanoseconds::zero();
  }
}

bool StreamEndpoint::reads_blocking() const noexcept
{
  if (m_blocking_serial == 0 || m_open.size() != 1) {
    return false;
  }
  const Connection& connection = m_slots[m_open.front()];
  return connection.serial == m_blocking_serial && !connection.broken && connection.pending.empty();
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
      m_blocking_serial = 0; // waits as a publisher does from now on
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
