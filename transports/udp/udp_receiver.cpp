#include "udp_receiver.hpp"

#include "peer_handle.hpp"

#include "common/tick_bounded_read.hpp"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace netprof::udp {

UdpReceiver::UdpReceiver(int fd, const ReassemblyLimits& limits,
                         std::optional<sockaddr_in> own_source)
    : m_own_source(own_source), m_reassembler(limits),
      m_storage(std::make_unique_for_overwrite<std::byte[]>(batch * slot_size)),
      m_iovs(std::make_unique<iovec[]>(batch)), m_sources(std::make_unique<sockaddr_in[]>(batch)),
      m_headers(std::make_unique<mmsghdr[]>(batch))
{
  m_socket.fd = fd;
  for (std::size_t i = 0; i < batch; ++i) {
    m_iovs[i].iov_base = m_storage.get() + i * slot_size;
    m_iovs[i].iov_len = slot_size;
    msghdr& header = m_headers[i].msg_hdr;
    header.msg_name = &m_sources[i];
    header.msg_iov = &m_iovs[i];
    header.msg_iovlen = 1;
  }
  m_socket.blocking = clear_nonblocking(fd);
}

void UdpReceiver::add_peer_socket(int fd, const sockaddr_in& peer) noexcept
{
  m_peer_socket.fd = fd;
  m_peer_socket.connected_to = peer;
  m_peer_socket.blocking = clear_nonblocking(fd);
}

// Without O_NONBLOCK a wait can be one blocking read; the reads that must not wait say so.
bool UdpReceiver::clear_nonblocking(int fd) noexcept
{
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0;
}

bool UdpReceiver::is_own(const sockaddr_in& source) const noexcept
{
  // A sender bound to no particular address may show up as 0.0.0.0 (a route without a
  // preferred source, as on a namespace's bare lo); its port alone is then ours on this host.
  return m_own_source && source.sin_port == m_own_source->sin_port &&
         (m_own_source->sin_addr.s_addr == htonl(INADDR_ANY) ||
          source.sin_addr.s_addr == m_own_source->sin_addr.s_addr);
}

int UdpReceiver::receive_datagrams(const Socket& socket, std::size_t wanted, bool block) noexcept
{
  const int flags = block ? 0 : MSG_DONTWAIT;
  for (std::size_t i = 0; i < wanted; ++i) {
    m_headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_in); // the kernel overwrites it
  }
  if (wanted == 1) {
    // recvmsg (or recv), not recvmmsg with one slot: the batch set-up costs ~0.4 us per call,
    // which is a tenth of a loopback ping-pong.
    ssize_t length = 0;
    if (socket.connected_to) {
      length = recv(socket.fd, m_iovs[0].iov_base, m_iovs[0].iov_len, flags);
      m_sources[0] = *socket.connected_to;
      m_headers[0].msg_hdr.msg_flags = 0; // a 64 KiB slot holds any datagram whole
    } else {
      length = recvmsg(socket.fd, &m_headers[0].msg_hdr, flags);
    }
    if (length < 0) {
      return -1;
    }
    m_headers[0].msg_len = static_cast<unsigned int>(length);
    return 1;
  }
  return recvmmsg(socket.fd, m_headers.get(), static_cast<unsigned int>(wanted),
                  block ? MSG_WAITFORONE : MSG_DONTWAIT, nullptr);
}

int UdpReceiver::deliver_batch(MessageSink& sink, std::size_t count) noexcept
{
  int delivered = 0;
  // Read once per batch, and only for batches with fragments: the reassembler's notion of
  // "idle" needs no finer grain.
  Clock::time_point now{};
  bool have_now = false;
  for (std::size_t i = 0; i < count; ++i) {
    const sockaddr_in& source = m_sources[i];
    if (is_own(source)) {
      continue;
    }
    const msghdr& header = m_headers[i].msg_hdr;
    if ((header.msg_flags & MSG_TRUNC) != 0) {
      ++m_truncated; // cannot happen with 64 KiB slots; counted rather than assumed
      continue;
    }
    const std::span<const std::byte> datagram(m_storage.get() + i * slot_size,
                                              m_headers[i].msg_len);
    if (!has_fragment_magic(datagram)) {
      sink.on_message(Delivery{datagram, 1, datagram.size(), peer_handle(source)});
      ++delivered;
      continue;
    }
    if (!have_now) {
      now = Clock::now();
      have_now = true;
    }
    const std::optional<ReassembledMessage> message =
        m_reassembler.accept(source_key(source), datagram, now);
    if (message) {
      sink.on_message(
          Delivery{message->bytes, message->datagrams, message->wire_bytes, peer_handle(source)});
      ++delivered;
    }
  }
  return delivered;
}

int UdpReceiver::drain(MessageSink& sink) noexcept
{
  if (m_peer_socket.fd < 0) {
    return drain_socket(sink, m_socket);
  }
  const int from_peer = drain_socket(sink, m_peer_socket);
  if (from_peer < 0) {
    return -1;
  }
  if (!m_lobby_has_peers && !m_lobby_readable && ++m_polls_since_lobby < lobby_poll_period) {
    return from_peer;
  }
  m_polls_since_lobby = 0;
  m_lobby_readable = false;
  const int from_lobby = drain_socket(sink, m_socket);
  if (from_lobby < 0) {
    return from_peer > 0 ? from_peer : -1;
  }
  return from_peer + from_lobby;
}

int UdpReceiver::drain_socket(MessageSink& sink, Socket& socket) noexcept
{
  // While the socket is quiet (ping-pong, paced streams) one datagram per call, with no second
  // and empty system call after it; once datagrams keep arriving call after call, batches.
  int delivered = 0;
  for (std::size_t round = 0; round < max_batches_per_receive; ++round) {
    const std::size_t wanted = socket.batching ? batch : 1;
    const int count = receive_datagrams(socket, wanted);
    if (count < 0) {
      // ECONNREFUSED: a connected socket reporting that something it sent found no one
      // listening (the peer is not up yet, or restarting). Nothing was received.
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED) {
        m_refusals += errno == ECONNREFUSED ? 1 : 0;
        socket.batching = false;
        socket.busy_streak = 0;
        break;
      }
      return delivered > 0 ? delivered : -1;
    }
    delivered += deliver_batch(sink, static_cast<std::size_t>(count));
    const bool was_batching = socket.batching;
    note_busyness(socket, count, wanted, true);
    if (!was_batching || static_cast<std::size_t>(count) < wanted) {
      break; // one at a time while quiet, or the socket is empty
    }
  }
  return delivered;
}

void UdpReceiver::note_busyness(Socket& socket, int count, std::size_t wanted,
                                bool waiting) noexcept
{
  if (!socket.batching) {
    socket.busy_streak = waiting ? socket.busy_streak + 1 : 0;
    socket.batching = socket.busy_streak >= busy_streak_for_batching;
    return;
  }
  if (count < 2 && wanted > 1) {
    socket.batching = false;
    socket.busy_streak = 0;
  }
}

bool UdpReceiver::set_read_timeout(Socket& socket, Nanoseconds timeout) noexcept
{
  if (timeout == socket.read_timeout) {
    return true;
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timeval wait{
      static_cast<time_t>(seconds.count()),
      static_cast<suseconds_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(timeout - seconds).count())};
  if (setsockopt(socket.fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0) {
    return false;
  }
  socket.read_timeout = timeout;
  return true;
}

std::optional<ReceiveResult> UdpReceiver::receive_blocking(MessageSink& sink, Socket& socket,
                                                           Clock::time_point start,
                                                           Clock::time_point deadline) noexcept
{
  const bool twin = &socket == &m_peer_socket;
  Clock::time_point read_from = start;
  for (;;) {
    // Every read ends by the deadline (tick_bounded_read.hpp); one that could not is not made.
    const Nanoseconds read_for = transport_common::tick_bounded_read_timeout(deadline - read_from);
    if (read_for < shortest_blocking_read) {
      return std::nullopt;
    }
    if (!set_read_timeout(socket, twin ? std::min(read_for, lobby_wait) : read_for)) {
      socket.blocking = false; // every wait in ppoll from now on
      return std::nullopt;
    }
    const std::size_t wanted = socket.batching ? batch : 1;
    const int count = receive_datagrams(socket, wanted, true);
    const Clock::time_point now = Clock::now();
    const int error = errno;
    if (count < 0) {
      if (error == EAGAIN || error == EWOULDBLOCK || error == EINTR) {
        note_busyness(socket, 0, wanted, false);
        m_reassembler.expire(now);
        // A twin's read waited lobby_wait: whoever else spoke is in the first socket.
        const int from_lobby = twin ? drain_socket(sink, m_socket) : 0;
        if (from_lobby != 0) {
          return from_lobby > 0 ? ReceiveResult::received : ReceiveResult::failed;
        }
        // The timeout passed, or a signal came (Ctrl-C): the core looks at its stop flag.
        if (error == EINTR || now >= deadline) {
          return ReceiveResult::timed_out;
        }
        read_from = now;
        continue;
      }
      if (error != ECONNREFUSED) {
        return ReceiveResult::failed;
      }
      ++m_refusals; // what we sent found no one listening; nothing was received
    } else {
      note_busyness(socket, count, wanted, now - read_from < waiting_datagram_read);
      int delivered = deliver_batch(sink, static_cast<std::size_t>(count));
      if (twin && ++m_polls_since_lobby >= lobby_poll_period) {
        m_polls_since_lobby = 0;
        // A failure shows again at the next non-blocking look.
        delivered += std::max(drain_socket(sink, m_socket), 0);
      }
      if (delivered > 0) {
        return ReceiveResult::received;
      }
    }
    // Our own datagram, a fragment of an unfinished message, or a refusal: wait on.
    if (now >= deadline) {
      return ReceiveResult::timed_out;
    }
    read_from = now;
  }
}

ReceiveResult UdpReceiver::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (timeout <= Nanoseconds::zero()) {
    const int count = drain(sink);
    return count < 0 ? ReceiveResult::failed
                     : (count > 0 ? ReceiveResult::received : ReceiveResult::timed_out);
  }
  const Clock::time_point start = Clock::now();
  // Capped so that a caller passing Nanoseconds::max() cannot overflow the deadline.
  const Clock::time_point deadline = start + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  Socket& socket = m_peer_socket.fd >= 0 ? m_peer_socket : m_socket;
  if (socket.blocking && !m_lobby_has_peers) {
    if (const std::optional<ReceiveResult> result = receive_blocking(sink, socket, start, deadline))
      return *result;
    // Nothing yet, and too little time left for a read that ends by the deadline.
  }
  // When the last call had to sleep (ping-pong, paced streams), a look before sleeping would
  // find nothing again and cost a failing read per message, which a blocking program does not
  // make: sleep first, then read. ppoll returns at once if something came meanwhile.
  bool look_first = !m_slept_last_call;
  for (;;) {
    if (look_first) {
      const int count = drain(sink);
      if (count < 0) {
        return ReceiveResult::failed;
      }
      if (count > 0) {
        // Found without sleeping: flowing. Woken to one datagram: still one at a time.
        m_slept_last_call = m_slept_last_call && count == 1;
        return ReceiveResult::received;
      }
    }
    look_first = true;
    const auto now = Clock::now();
    const Nanoseconds remaining = deadline - now;
    if (remaining <= Nanoseconds::zero()) {
      m_reassembler.expire(now); // keeps the eviction counters current while idle
      return ReceiveResult::timed_out;
    }
    const int ready = wait_readable(remaining);
    m_slept_last_call = true;
    if (ready == 0) {
      m_reassembler.expire(Clock::now());
      return ReceiveResult::timed_out;
    }
    if (ready < 0) {
      // EINTR: a signal (Ctrl-C) arrived; the core looks at its stop flag and calls again.
      return errno == EINTR ? ReceiveResult::timed_out : ReceiveResult::failed;
    }
    // Readable (or a pending socket error, which drain reports): go round again. A datagram
    // can vanish between poll and recv (bad checksum), or be one we drop (our own, a fragment
    // of an unfinished message), hence the loop rather than one try.
  }
}

int UdpReceiver::wait_readable(Nanoseconds remaining) noexcept
{
  pollfd sockets[3] = {{m_socket.fd, POLLIN, 0}, {m_peer_socket.fd, POLLIN, 0}, {}};
  const int ready = m_wait.wait(sockets, remaining);
  if (ready > 0) {
    if ((sockets[0].revents & POLLNVAL) != 0 || (sockets[1].revents & POLLNVAL) != 0) {
      errno = EBADF;
      return -1;
    }
    m_lobby_readable = sockets[0].revents != 0;
  }
  return ready;
}

} // namespace netprof::udp
