#include "udp_endpoint.hpp"

#include "socket_address.hpp"

#include <netprof/errors.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <system_error>

namespace netprof::udp {

namespace {

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

bool would_block(int error) noexcept
{
  // ENOBUFS: Linux ran out of room in the device queue; like EAGAIN, waiting helps.
  return error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS;
}

std::size_t read_buffer_size(int fd, int option)
{
  int value = 0;
  socklen_t length = sizeof value;
  if (getsockopt(fd, SOL_SOCKET, option, &value, &length) != 0) {
    throw TransportError("cannot read UDP socket buffer size: " + error_text(errno));
  }
  return value > 0 ? static_cast<std::size_t>(value) : 0;
}

} // namespace

UdpEndpoint::UdpEndpoint(const sockaddr_in& own, const std::vector<sockaddr_in>& peers,
                         std::size_t queue_length_bytes)
    : m_peers(max_peers), m_send_headers(max_peers),
      m_receive_storage(receive_batch * receive_slot_size), m_receive_iovs(receive_batch),
      m_receive_sources(receive_batch), m_receive_headers(receive_batch)
{
  // CLOEXEC because the local pair starts child processes, which must not inherit the port.
  m_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (m_fd < 0) {
    throw TransportError("cannot open a UDP socket: " + error_text(errno));
  }
  try {
    size_buffers(queue_length_bytes);

    // SO_REUSEADDR stays off on purpose: two processes on one port would split the traffic
    // between them, so a port in use must be an error.
    if (bind(m_fd, reinterpret_cast<const sockaddr*>(&own), sizeof own) != 0) {
      throw TransportError("cannot bind UDP " + to_string(own) + ": " + error_text(errno));
    }
    socklen_t length = sizeof m_local;
    if (getsockname(m_fd, reinterpret_cast<sockaddr*>(&m_local), &length) != 0) {
      throw TransportError("cannot read the bound UDP address: " + error_text(errno));
    }
  } catch (...) {
    close(m_fd);
    throw;
  }

  for (std::size_t i = 0; i < max_peers; ++i) {
    msghdr& header = m_send_headers[i].msg_hdr;
    header.msg_name = &m_peers[i];
    header.msg_namelen = sizeof(sockaddr_in);
    header.msg_iov = &m_send_iov;
    header.msg_iovlen = 1;
  }
  for (std::size_t i = 0; i < receive_batch; ++i) {
    m_receive_iovs[i].iov_base = m_receive_storage.data() + i * receive_slot_size;
    m_receive_iovs[i].iov_len = receive_slot_size;
    msghdr& header = m_receive_headers[i].msg_hdr;
    header.msg_name = &m_receive_sources[i];
    header.msg_iov = &m_receive_iovs[i];
    header.msg_iovlen = 1;
  }
  for (const sockaddr_in& peer : peers) {
    if (!add_peer(peer)) {
      ++m_ignored_peers;
    }
  }
}

UdpEndpoint::~UdpEndpoint()
{
  close(m_fd);
}

void UdpEndpoint::size_buffers(std::size_t queue_length_bytes)
{
  m_requested_buffer_bytes = queue_length_bytes;
  if (queue_length_bytes == 0) {
    // Nothing set: the kernel's defaults (net.core.[rw]mem_default), halved like the granted
    // figures below so both read as usable bytes.
    m_granted_send_buffer_bytes = read_buffer_size(m_fd, SO_SNDBUF) / 2;
    m_granted_receive_buffer_bytes = read_buffer_size(m_fd, SO_RCVBUF) / 2;
    return;
  }
  // The kernel caps at [rw]mem_max anyway; this only keeps the int from overflowing.
  const int value = static_cast<int>(std::min<std::size_t>(queue_length_bytes, INT_MAX / 2));
  struct Buffer {
    int option;
    const char* name;
    const char* sysctl;
    std::size_t* granted;
  };
  const Buffer buffers[] = {
      {SO_SNDBUF, "send", "net.core.wmem_max", &m_granted_send_buffer_bytes},
      {SO_RCVBUF, "receive", "net.core.rmem_max", &m_granted_receive_buffer_bytes},
  };
  for (const Buffer& buffer : buffers) {
    if (setsockopt(m_fd, SOL_SOCKET, buffer.option, &value, sizeof value) != 0) {
      throw TransportError(std::string("cannot set the UDP ") + buffer.name + " buffer to " +
                           std::to_string(value) + " B: " + error_text(errno));
    }
    // Linux doubles what it is given (the other half is its bookkeeping) and reports the
    // doubled figure, so half of it compares with what was asked.
    *buffer.granted = read_buffer_size(m_fd, buffer.option) / 2;
    if (*buffer.granted < queue_length_bytes) {
      m_notes.push_back(std::string(buffer.name) + " buffer clamped to " +
                        std::to_string(*buffer.granted) + " B by " + buffer.sysctl +
                        " (requested " + std::to_string(queue_length_bytes) + " B)");
    }
  }
}

bool UdpEndpoint::add_peer(const sockaddr_in& peer) noexcept
{
  const auto begin = m_peers.begin();
  const auto end = begin + static_cast<std::ptrdiff_t>(m_peer_count);
  if (std::any_of(begin, end,
                  [&](const sockaddr_in& known) { return same_endpoint(known, peer); })) {
    return true;
  }
  if (m_peer_count == max_peers) {
    return false;
  }
  m_peers[m_peer_count++] = peer;
  return true;
}

void UdpEndpoint::add_peer_from_last_message() noexcept
{
  if (m_have_last_source && !add_peer(m_last_source)) {
    ++m_ignored_peers;
  }
}

SendResult UdpEndpoint::send(std::span<const std::byte> message) noexcept
{
  if (message.size() > max_message_size) {
    return SendResult::failed;
  }
  // A publisher before its first hello sends to nobody, like a multicast group nobody joined.
  if (m_peer_count == 0) {
    return SendResult::sent;
  }
  m_send_iov.iov_base = const_cast<std::byte*>(message.data());
  m_send_iov.iov_len = message.size();

  if (m_peer_count == 1) {
    const ssize_t sent =
        sendto(m_fd, message.data(), message.size(), 0,
               reinterpret_cast<const sockaddr*>(&m_peers[0]), sizeof(sockaddr_in));
    if (sent >= 0) {
      return SendResult::sent;
    }
    return would_block(errno) ? SendResult::back_pressured : SendResult::failed;
  }

  // Many peers: one sendmmsg for all of them. It stops at the first peer that fails, so go on
  // from there. A peer that was skipped sees a gap, which the core counts as loss: that is
  // honest for UDP, whereas reporting "not sent" would make the core resend to the peers
  // that already have it.
  std::size_t next = 0;
  std::size_t delivered = 0;
  int last_error = 0;
  while (next < m_peer_count) {
    const int sent =
        sendmmsg(m_fd, &m_send_headers[next], static_cast<unsigned int>(m_peer_count - next), 0);
    if (sent > 0) {
      next += static_cast<std::size_t>(sent);
      delivered += static_cast<std::size_t>(sent);
      continue;
    }
    last_error = errno;
    if (last_error == EINTR) {
      continue;
    }
    if (would_block(last_error)) {
      break; // the socket's send buffer is full: every later peer would fail the same way
    }
    ++next; // this peer is unreachable; the others may not be
  }
  if (delivered > 0) {
    return SendResult::sent;
  }
  return would_block(last_error) ? SendResult::back_pressured : SendResult::failed;
}

int UdpEndpoint::drain(MessageSink& sink) noexcept
{
  for (mmsghdr& header : m_receive_headers) {
    header.msg_hdr.msg_namelen = sizeof(sockaddr_in); // the kernel overwrites it
  }
  const int count = recvmmsg(m_fd, m_receive_headers.data(),
                             static_cast<unsigned int>(receive_batch), MSG_DONTWAIT, nullptr);
  if (count < 0) {
    return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
  }
  for (int i = 0; i < count; ++i) {
    const auto slot = static_cast<std::size_t>(i);
    // Set before the sink runs, so a sink that accepts a hello can add its sender right away.
    m_last_source = m_receive_sources[slot];
    m_have_last_source = true;
    sink.on_message(std::span<const std::byte>(m_receive_storage.data() + slot * receive_slot_size,
                                               m_receive_headers[slot].msg_len));
  }
  return count;
}

ReceiveResult UdpEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (timeout <= Nanoseconds::zero()) {
    const int count = drain(sink);
    return count < 0 ? ReceiveResult::failed
                     : (count > 0 ? ReceiveResult::received : ReceiveResult::timed_out);
  }
  // Capped so that a caller passing Nanoseconds::max() cannot overflow the deadline.
  const auto deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  for (;;) {
    const int count = drain(sink);
    if (count < 0) {
      return ReceiveResult::failed;
    }
    if (count > 0) {
      return ReceiveResult::received;
    }
    const Nanoseconds remaining = deadline - Clock::now();
    if (remaining <= Nanoseconds::zero()) {
      return ReceiveResult::timed_out;
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(remaining);
    const timespec wait{static_cast<time_t>(seconds.count()),
                        static_cast<long>((remaining - seconds).count())};
    pollfd readable{m_fd, POLLIN, 0};
    const int ready = ppoll(&readable, 1, &wait, nullptr);
    if (ready == 0) {
      return ReceiveResult::timed_out;
    }
    if (ready < 0) {
      // EINTR: a signal (Ctrl-C) arrived; the core looks at its stop flag and calls again.
      return errno == EINTR ? ReceiveResult::timed_out : ReceiveResult::failed;
    }
    if ((readable.revents & POLLNVAL) != 0) {
      return ReceiveResult::failed;
    }
    // Readable (or a pending socket error, which drain reports): go round again. A datagram
    // can vanish between poll and recv (bad checksum), hence the loop rather than one try.
  }
}

EndpointFacts UdpEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "udp";
  facts.local_addresses.push_back(to_string(m_local));
  for (std::size_t i = 0; i < m_peer_count; ++i) {
    facts.peer_addresses.push_back(to_string(m_peers[i]));
  }
  facts.max_message_size = max_message_size;
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.granted_send_buffer_bytes = m_granted_send_buffer_bytes;
  facts.granted_receive_buffer_bytes = m_granted_receive_buffer_bytes;
  facts.notes = m_notes;
  if (m_ignored_peers > 0) {
    facts.notes.push_back(std::to_string(m_ignored_peers) + " peers ignored beyond the limit of " +
                          std::to_string(max_peers));
  }
  return facts;
}

} // namespace netprof::udp
