#include "stream_endpoint.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <new>

// The connection table: accepting (and making room), opening, closing and counting why, and a
// subscriber's dialling. Sending and receiving are in stream_endpoint.cpp.

namespace netprof::stream {

namespace {

// Connections accepted per readable listener, so that a flood of connects cannot keep a
// receive() from returning.
constexpr int accepts_per_call = 16;
// After accept failed for want of descriptors or memory, the listener rests this long rather
// than waking every poll.
constexpr auto accept_pause = std::chrono::milliseconds(100);
// A subscriber without a connection dials its publisher this often.
constexpr auto redial_interval = std::chrono::milliseconds(100);
// How long a leaving subscriber waits for its publisher to close its end of their connection.
constexpr auto goodbye_limit = std::chrono::milliseconds(100);
// What a publisher's reader starts with: room for many back-channel messages per recv.
constexpr std::size_t publisher_reader_bytes = 4096;
// What a subscriber's reader starts with at least, so that small data is read many at a time.
constexpr std::size_t subscriber_reader_bytes = 65536;

} // namespace

StreamEndpoint::~StreamEndpoint()
{
  if (m_publisher || !connected()) {
    return;
  }
  flush_pending(); // what the core sent last (its final counters) goes before the goodbye
  close_after_peer(std::move(m_slots[m_open.front()].fd), goodbye_limit);
}

Connection* StreamEndpoint::find(PeerHandle handle) noexcept
{
  const std::size_t slot = handle.value & slot_mask;
  if (handle.none() || slot >= m_slots.size()) {
    return nullptr;
  }
  Connection& connection = m_slots[slot];
  const bool same = connection.open() && connection.serial == (handle.value >> slot_bits);
  return same && !connection.broken ? &connection : nullptr;
}

void StreamEndpoint::accept_waiting() noexcept
{
  for (int i = 0; i < accepts_per_call; ++i) {
    transport_common::UniqueFd fd(
        accept4(m_listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) {
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return;
      }
      // Out of descriptors or memory. Strangers must not keep subscribers out by holding every
      // descriptor: the first of them goes, and accept is tried again.
      ++m_accept_errors;
      m_accept_error = errno;
      if ((m_accept_error != EMFILE && m_accept_error != ENFILE) || !evict_oldest_stranger()) {
        m_accept_paused_until = Clock::now() + accept_pause; // it waits in the backlog
        return;
      }
      continue;
    }
    ++m_accepted;
    const std::optional<std::size_t> slot = free_slot();
    if (!slot) {
      ++m_closed.refused; // every slot is a subscriber's: this one is closed (fd goes)
      continue;
    }
    open_connection(*slot, std::move(fd));
  }
}

void StreamEndpoint::accept_if_waiting() noexcept
{
  // An accept4 that finds nobody still makes and frees a socket and a file: 4.1-4.5 us on this
  // VM's kernel, against 0.4 us for a ppoll that finds nobody. Paid once a millisecond by a
  // spinning publisher, it was the stall behind a spin ping-pong's RTT p99 (issue 29).
  pollfd listener{m_listener.get(), POLLIN, 0};
  const timespec no_wait{0, 0};
  if (ppoll(&listener, 1, &no_wait, nullptr) != 0) { // an error: accept says which
    accept_waiting();
  }
}

std::optional<std::size_t> StreamEndpoint::free_slot() noexcept
{
  if (m_open.size() < m_slots.size()) {
    for (std::size_t slot = 0; slot < m_slots.size(); ++slot) {
      if (!m_slots[slot].open()) {
        return slot;
      }
    }
  }
  return evict_oldest_stranger(); // full: a stranger makes room
}

std::optional<std::size_t> StreamEndpoint::evict_oldest_stranger() noexcept
{
  // The connection never adopted that came first, as the core's unproven hellos give way to
  // each other; adopted ones never go.
  std::optional<std::size_t> oldest;
  for (std::size_t i = 0; i < m_open.size(); ++i) {
    const Connection& connection = m_slots[m_open[i]];
    if (!connection.adopted && (!oldest || connection.opened < m_slots[m_open[*oldest]].opened)) {
      oldest = i;
    }
  }
  if (!oldest) {
    return std::nullopt;
  }
  const std::size_t slot = m_open[*oldest];
  mark_broken(m_slots[slot], ReadEnd::open, 0); // not the stranger's doing: counted as evicted
  ++m_closed.evicted;
  close_connection(*oldest);
  return slot;
}

void StreamEndpoint::open_connection(std::size_t slot, transport_common::UniqueFd fd) noexcept
{
  Connection& connection = m_slots[slot];
  m_sockets->prepare(fd.get());
  try {
    connection.peer = m_sockets->describe_peer(fd.get());
    if (m_framing == Framing::length_prefixed) {
      const std::size_t capacity =
          m_publisher
              ? publisher_reader_bytes
              : std::max(m_limits.expected_message + frame_header_size, subscriber_reader_bytes);
      connection.reader = FrameReader(m_limits.read_limit, capacity);
    }
  } catch (const std::bad_alloc&) {
    ++m_closed.failed; // fd goes: no room to read it
    return;
  }
  connection.fd = std::move(fd);
  connection.serial = m_next_serial++;
  connection.opened = Clock::now();
  connection.adopted = false;
  connection.readable = true; // its first messages may have come with it
  connection.broken = false;
  connection.ending = ReadEnd::open;
  connection.error = 0;
  connection.pending.clear();
  m_open.push_back(static_cast<std::uint16_t>(slot));
}

void StreamEndpoint::settle(Connection& connection, const ReadReport& report) noexcept
{
  mark_broken(connection, report.end, report.error);
  const bool hostile = report.end == ReadEnd::mid_frame || report.end == ReadEnd::not_a_frame ||
                       report.end == ReadEnd::too_large;
  const bool ends_a_subscriber = !m_publisher && (hostile || report.end == ReadEnd::out_of_memory);
  if (!(hostile && m_closed.first_hostile.empty()) && !ends_a_subscriber) {
    return;
  }
  try {
    std::string what;
    if (report.end == ReadEnd::mid_frame) {
      const std::optional<std::size_t> length = connection.reader.partial_length();
      const std::size_t arrived = connection.reader.partial_bytes();
      what = "closed in the middle of a message (" +
             (length ? std::to_string(arrived - frame_header_size) + " of its " +
                           std::to_string(*length) + " bytes"
                     : std::to_string(arrived) + " bytes of its " +
                           std::to_string(frame_header_size) + "-byte frame header") +
             " had come)";
    } else if (report.end == ReadEnd::not_a_frame) {
      what = "sent bytes that are not netprof's framing";
    } else if (report.end == ReadEnd::too_large) {
      what = "announced a message of " + std::to_string(report.announced) +
             " bytes, more than the " + std::to_string(m_limits.read_limit) + " read here";
    } else {
      what = "sent a message there was no memory for";
    }
    if (m_publisher) {
      m_closed.first_hostile = "the first, " + connection.peer + ", " + what;
    } else {
      m_publisher_fault = "the publisher's connection (" + m_publisher_address + ") " + what;
    }
  } catch (const std::bad_alloc&) {
    if (!m_publisher) {
      m_publisher_fault = " "; // still ends the run, unnamed
    }
  }
}

void StreamEndpoint::close_broken() noexcept
{
  for (std::size_t i = m_open.size(); i-- > 0;) {
    if (m_slots[m_open[i]].broken) {
      close_connection(i);
    }
  }
}

void StreamEndpoint::count_ending(const Connection& connection) noexcept
{
  switch (connection.ending) {
  case ReadEnd::closed:
    ++m_closed.by_peer;
    break;
  case ReadEnd::mid_frame:
    ++m_closed.mid_frame;
    break;
  case ReadEnd::not_a_frame:
    ++m_closed.not_a_frame;
    break;
  case ReadEnd::too_large:
    ++m_closed.too_large;
    break;
  case ReadEnd::failed:
  case ReadEnd::out_of_memory:
    ++m_closed.failed;
    break;
  case ReadEnd::open:
    break; // closed by this side (evicted), counted there
  }
}

void StreamEndpoint::close_connection(std::size_t open_index) noexcept
{
  const std::size_t slot = m_open[open_index];
  Connection& connection = m_slots[slot];
  count_ending(connection);
  if (connection.adopted) {
    --m_adopted;
  }
  connection.fd.reset();
  connection.serial = 0;
  connection.adopted = false;
  connection.readable = false;
  connection.broken = false;
  connection.pending.clear();
  m_open[open_index] = m_open.back();
  m_open.pop_back();
  if (!m_publisher) {
    m_next_dial = Clock::now() + redial_interval;
  }
}

void StreamEndpoint::dial_if_due(Clock::time_point now) noexcept
{
  if (connected() || m_dialing.valid() || now < m_next_dial || publisher_lost()) {
    return;
  }
  int error = 0;
  transport_common::UniqueFd fd = m_sockets->dial(error);
  if (!fd.valid()) {
    ++m_dials_failed;
    m_dial_error = error;
    m_next_dial = now + redial_interval;
  } else if (error == EINPROGRESS) {
    m_dialing = std::move(fd);
  } else {
    connected_through(std::move(fd));
  }
}

void StreamEndpoint::finish_dial() noexcept
{
  pollfd entry{m_dialing.get(), POLLOUT, 0};
  if (poll(&entry, 1, 0) == 0) {
    return; // still under way
  }
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(m_dialing.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) {
    error = errno;
  }
  if (error != 0) {
    ++m_dials_failed;
    m_dial_error = error;
    m_dialing.reset();
    m_next_dial = Clock::now() + redial_interval;
    return;
  }
  connected_through(std::move(m_dialing));
}

void StreamEndpoint::connected_through(transport_common::UniqueFd fd) noexcept
{
  try {
    m_own_end = m_sockets->describe_own_end(fd.get());
  } catch (const std::bad_alloc&) {
  }
  ++m_connections_made;
  open_connection(0, std::move(fd));
  make_reads_blocking();
}

} // namespace netprof::stream
