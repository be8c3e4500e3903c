#include "udp_sender.hpp"

#include "udp_tuning.hpp"

#include <netinet/udp.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace netprof::udp {

namespace {

bool would_block(int error) noexcept
{
  // ENOBUFS: Linux ran out of room in the device queue; like EAGAIN, waiting helps.
  return error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS;
}

// The kernel's limits for one GSO send (UDP_MAX_SEGMENTS, and one IP datagram's worth).
constexpr std::size_t max_gso_segments = 64;
constexpr std::size_t max_gso_bytes = max_datagram_size;

// What the kernel answers when it cannot segment: no such option (ENOPROTOOPT, EINVAL on old
// kernels), a device without checksum offload (EIO), a segment beyond the path MTU (EMSGSIZE).
bool gso_refused(int error) noexcept
{
  return error == EIO || error == EINVAL || error == ENOPROTOOPT || error == EOPNOTSUPP ||
         error == EMSGSIZE;
}

} // namespace

SendResult UdpSender::Progress::result() const noexcept
{
  if (committed) {
    return SendResult::sent;
  }
  if (would_block) {
    return SendResult::back_pressured;
  }
  return failed ? SendResult::failed : SendResult::sent;
}

std::size_t UdpSender::build_runs(std::size_t from) noexcept
{
  std::size_t runs = 0;
  for (std::size_t first = from; first < m_queued; ++runs) {
    const std::size_t size = m_batch_iovs[first].iov_len;
    std::size_t end = first + 1;
    std::size_t bytes = size;
    if (m_settings.gso && size > 0) {
      // Equal sizes, then at most one shorter message to end the run.
      while (end < m_queued && end - first < max_gso_segments &&
             bytes + m_batch_iovs[end].iov_len <= max_gso_bytes &&
             m_batch_iovs[end].iov_len <= size && m_batch_iovs[end].iov_len > 0) {
        bytes += m_batch_iovs[end].iov_len;
        ++end;
        if (m_batch_iovs[end - 1].iov_len < size) {
          break;
        }
      }
    }
    msghdr& header = m_run_headers[runs].msg_hdr;
    header = msghdr{};
    header.msg_namelen = sizeof(sockaddr_in);
    header.msg_iov = &m_batch_iovs[first];
    header.msg_iovlen = end - first;
    if (end - first > 1) {
      std::byte* control = m_run_control.get() + runs * run_control_size;
      header.msg_control = control;
      header.msg_controllen = run_control_size;
      cmsghdr* message = CMSG_FIRSTHDR(&header);
      message->cmsg_level = SOL_UDP;
      message->cmsg_type = UDP_SEGMENT;
      message->cmsg_len = CMSG_LEN(sizeof(std::uint16_t));
      const auto segment = static_cast<std::uint16_t>(size);
      std::memcpy(CMSG_DATA(message), &segment, sizeof segment);
    }
    first = end;
  }
  return runs;
}

bool UdpSender::fits_batch(std::span<const std::byte> message) const noexcept
{
  return m_settings.batch > 1 && message.size() <= m_batch_slot_size &&
         !has_fragment_magic(message);
}

SendOutcome UdpSender::send(std::span<const std::byte> message) noexcept
{
  m_last_error = 0;
  return outcome(send_message(message));
}

SendOutcome UdpSender::flush() noexcept
{
  m_last_error = 0;
  return outcome(send_batch());
}

SendOutcome UdpSender::send_to(std::size_t peer, std::span<const std::byte> message) noexcept
{
  m_last_error = 0;
  if (message.size() > m_settings.max_message_size) {
    m_last_error = EMSGSIZE;
    return outcome(SendResult::failed);
  }
  if (m_queued > 0) {
    const SendResult flushed = send_batch();
    if (flushed != SendResult::sent) {
      return outcome(flushed);
    }
  }
  return outcome(peer < m_peers.size() ? send_now(message, Targets{peer, 1}) : SendResult::sent);
}

SendOutcome UdpSender::outcome(SendResult result) const noexcept
{
  return {result,
          result == SendResult::sent ? SendCause::unspecified : send_cause_of_errno(m_last_error)};
}

SendResult UdpSender::send_message(std::span<const std::byte> message) noexcept
{
  if (message.size() > m_settings.max_message_size) {
    m_last_error = EMSGSIZE;
    return SendResult::failed;
  }
  if (!fits_batch(message)) {
    // Whatever is queued goes first, so that messages leave in the order they were given.
    if (m_queued > 0) {
      const SendResult flushed = send_batch();
      if (flushed != SendResult::sent) {
        return flushed;
      }
    }
    return send_now(message, every_peer());
  }
  if (m_queued == m_settings.batch) {
    const SendResult flushed = send_batch();
    if (m_queued == m_settings.batch) {
      return flushed == SendResult::failed ? SendResult::failed : SendResult::back_pressured;
    }
  }
  std::memcpy(m_batch_iovs[m_queued].iov_base, message.data(), message.size());
  m_batch_iovs[m_queued].iov_len = message.size();
  ++m_queued;
  if (m_queued == m_settings.batch && send_batch() == SendResult::failed) {
    return SendResult::failed;
  }
  // Back-pressured here, it stays queued and goes out with a later send() or flush().
  return SendResult::sent;
}

SendResult UdpSender::send_batch() noexcept
{
  if (m_queued == 0) {
    return SendResult::sent;
  }
  Progress progress;
  std::size_t runs = build_runs(0);
  const std::size_t peer_count = m_peers.size();
  const std::size_t first_peer = peer_count > 0 ? next_first_peer(peer_count) : 0;
  for (std::size_t turn = 0; turn < peer_count;) {
    const std::size_t peer = (first_peer + turn) % peer_count; // in turn, as in send_single
    for (std::size_t i = 0; i < runs; ++i) {
      m_run_headers[i].msg_hdr.msg_name = m_peers.address(peer);
    }
    Progress attempt;
    const std::size_t sent = push(m_run_headers.get(), runs, attempt);
    progress.committed |= attempt.committed;
    if (sent < runs && attempt.failed && m_settings.gso && gso_refused(m_last_error)) {
      // This kernel or device cannot segment: from now on one entry per message, starting
      // again for this peer with the first message it did not get.
      const auto resume =
          static_cast<std::size_t>(m_run_headers[sent].msg_hdr.msg_iov - m_batch_iovs.get());
      m_settings.gso = false;
      m_gso_refused_error = m_last_error;
      runs = build_runs(resume);
      continue;
    }
    progress.would_block |= attempt.would_block;
    progress.failed |= attempt.failed;
    if (++turn < peer_count && m_run_headers[0].msg_hdr.msg_iov != m_batch_iovs.get()) {
      runs = build_runs(0); // the next peer gets the whole batch
    }
  }
  if (!progress.committed && progress.would_block) {
    return SendResult::back_pressured; // nothing went out: all of it is retried later
  }
  m_queued = 0;
  return progress.result();
}

UdpSender::Targets UdpSender::every_peer() noexcept
{
  // Each message starts at the next peer in turn (docs/multi-host.md, "Fan-out"): when the
  // socket's buffer fills part way through the peers (a full link), the peers left out change
  // from message to message, so the link is shared instead of the last peer losing it all.
  const std::size_t count = m_peers.size();
  return {count > 0 ? next_first_peer(count) : 0, count};
}

SendResult UdpSender::send_now(std::span<const std::byte> message, Targets targets) noexcept
{
  // A message that begins with the fragment magic goes framed as a one-fragment message, so
  // that the receiver cannot mistake it for a fragment.
  if (message.size() > m_settings.fragment_size || has_fragment_magic(message)) {
    return send_fragmented(message, targets);
  }
  return send_single(message, targets);
}

SendResult UdpSender::send_single(std::span<const std::byte> message, Targets targets) noexcept
{
  const std::size_t peer_count = m_peers.size();
  // A publisher before its first hello sends to nobody, like a multicast group nobody joined.
  if (targets.count == 0) {
    return SendResult::sent;
  }
  if (peer_count == 1) {
    bool refused_before = false;
    for (;;) {
      const ssize_t sent =
          m_connected_fd >= 0
              ? ::send(m_connected_fd, message.data(), message.size(), MSG_DONTWAIT)
              : sendto(m_fd, message.data(), message.size(), MSG_DONTWAIT,
                       reinterpret_cast<const sockaddr*>(&m_peers[0]), sizeof(sockaddr_in));
      if (sent >= 0) {
        return SendResult::sent;
      }
      m_refusals += errno == ECONNREFUSED ? 1 : 0;
      if (errno == ECONNREFUSED && !refused_before) {
        // A connected socket reports an earlier datagram that found no one listening (the peer
        // is not up yet, or restarting), and sends nothing this once. Unconnected UDP never
        // hears of it; neither should the core: send again.
        refused_before = true;
        continue;
      }
      if (errno != EINTR) {
        m_last_error = errno;
        return would_block(errno) ? SendResult::back_pressured : SendResult::failed;
      }
    }
  }

  // Many peers: one sendmmsg for all of them. It stops at the first peer that fails, so go on
  // from there. A peer that was skipped sees a gap, which the core counts as loss: that is
  // honest for UDP, whereas reporting "not sent" would make the core resend to the peers
  // that already have it.
  m_single_iov.iov_base = const_cast<std::byte*>(message.data());
  m_single_iov.iov_len = message.size();
  const std::size_t end = targets.first + targets.count; // past the table: wraps to its start
  std::size_t delivered = 0;
  int last_error = 0;
  if (send_to_peers(targets.first, std::min(end, peer_count), delivered, last_error) &&
      end > peer_count) {
    send_to_peers(0, end - peer_count, delivered, last_error);
  }
  if (delivered > 0) {
    return SendResult::sent;
  }
  m_last_error = last_error;
  return would_block(last_error) ? SendResult::back_pressured : SendResult::failed;
}

std::size_t UdpSender::next_first_peer(std::size_t peer_count) noexcept
{
  const std::size_t first = m_next_first_peer < peer_count ? m_next_first_peer : 0;
  m_next_first_peer = first + 1;
  return first;
}

bool UdpSender::send_to_peers(std::size_t from, std::size_t to, std::size_t& delivered,
                              int& last_error) noexcept
{
  std::size_t next = from;
  while (next < to) {
    const int sent =
        sendmmsg(m_fd, &m_peer_headers[next],
                 static_cast<unsigned int>(std::min(to - next, max_batch)), MSG_DONTWAIT);
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
      return false; // the socket's send buffer is full: every later peer would fail the same way
    }
    ++next; // this peer is unreachable; the others may not be
  }
  return true;
}

std::size_t UdpSender::push(mmsghdr* headers, std::size_t count, Progress& progress) noexcept
{
  std::size_t sent = 0;
  bool stalled = false;
  bool refused_before = false;
  Clock::time_point give_up{};
  while (sent < count) {
    const int result =
        sendmmsg(m_fd, headers + sent, static_cast<unsigned int>(std::min(count - sent, max_batch)),
                 MSG_DONTWAIT);
    if (result > 0) {
      sent += static_cast<std::size_t>(result);
      progress.committed = true;
      stalled = false;
      continue;
    }
    const int error = errno;
    m_refusals += error == ECONNREFUSED ? 1 : 0;
    if (error == EINTR || (error == ECONNREFUSED && !refused_before)) {
      // ECONNREFUSED: a connected socket's report of an earlier datagram (see send_single).
      refused_before = refused_before || error == ECONNREFUSED;
      continue;
    }
    m_last_error = error;
    if (!would_block(error)) {
      progress.failed = true;
      break;
    }
    progress.would_block = true;
    if (!progress.committed) {
      break; // nothing of it went anywhere yet: the caller reports back-pressure
    }
    if (!stalled) {
      stalled = true;
      give_up = Clock::now() + stall_limit;
    }
    if (!wait_writable(give_up)) {
      break;
    }
  }
  return sent;
}

RoomWait UdpSender::wait_for_room(Nanoseconds timeout) noexcept
{
  // Both sockets, when a connected one carries single datagrams: fragments and batches still
  // go out through the unconnected one.
  pollfd writable[2] = {{m_fd, POLLOUT, 0}, {m_connected_fd, POLLOUT, 0}};
  const nfds_t count = m_connected_fd >= 0 ? 2 : 1;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timespec wait{static_cast<time_t>(seconds.count()),
                      static_cast<long>((timeout - seconds).count())};
  const int ready = ppoll(writable, count, &wait, nullptr);
  return ready >= 0 || errno == EINTR ? RoomWait::ready : RoomWait::failed;
}

bool UdpSender::wait_writable(Clock::time_point deadline) noexcept
{
  const Nanoseconds remaining = deadline - Clock::now();
  if (remaining <= Nanoseconds::zero()) {
    return false;
  }
  const timespec wait{0, static_cast<long>(remaining.count())}; // below a second
  pollfd writable{m_fd, POLLOUT, 0};
  const int ready = ppoll(&writable, 1, &wait, nullptr);
  // EINTR: try again; the deadline still bounds the whole wait.
  return ready > 0 || (ready < 0 && errno == EINTR);
}

} // namespace netprof::udp
