#include "connection.hpp"

#include "common/socket_wait.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace netprof::stream {

namespace {

ReadEnd end_of(FrameError error) noexcept
{
  switch (error) {
  case FrameError::not_a_frame:
    return ReadEnd::not_a_frame;
  case FrameError::too_large:
    return ReadEnd::too_large;
  case FrameError::out_of_memory:
    return ReadEnd::out_of_memory;
  case FrameError::none:
    break;
  }
  return ReadEnd::open;
}

bool would_block(int error) noexcept
{
  return error == EAGAIN || error == EWOULDBLOCK;
}

// After a read returned -1: false to read again (EINTR), true to stop, with `report` saying
// why when it is more than "nothing to read now".
bool stop_after_error(ReadReport& report) noexcept
{
  if (errno == EINTR) {
    return false;
  }
  if (!would_block(errno)) {
    report.end = ReadEnd::failed;
    report.error = errno;
  }
  return true;
}

WriteOutcome queue(Connection& connection, std::span<const std::byte> first,
                   std::span<const std::byte> second) noexcept
{
  return connection.pending.append(first, second) ? WriteOutcome::queued : WriteOutcome::blocked;
}

// What is left of a frame after `sent` of its bytes went out: it must follow, or the stream is
// out of step for good.
WriteOutcome queue_rest(Connection& connection, std::span<const std::byte> head,
                        std::span<const std::byte> message, std::size_t sent) noexcept
{
  const bool kept = sent < head.size()
                        ? connection.pending.append(head.subspan(sent), message)
                        : connection.pending.append({}, message.subspan(sent - head.size()));
  if (kept) {
    return WriteOutcome::queued;
  }
  mark_broken(connection, ReadEnd::out_of_memory, ENOMEM);
  return WriteOutcome::failed;
}

// Up to this many bytes, a frame's header and message are copied into one buffer and go by
// send(): the copy costs less than sendmsg's import of a two-part iovec, and the frame is on
// the round trip's path.
constexpr std::size_t copied_frame = 1024;

// What becomes of a message whose send failed with errno (not EINTR): queued when allowed or
// pushed back while the socket is full, else a failure (EMSGSIZE refuses the message alone;
// any other error ends the connection).
WriteOutcome after_send_error(Connection& connection, std::span<const std::byte> head,
                              std::span<const std::byte> message, bool may_queue) noexcept
{
  if (would_block(errno) || (head.empty() && errno == ENOBUFS)) {
    return may_queue ? queue(connection, head, message) : WriteOutcome::blocked;
  }
  if (errno != EMSGSIZE) {
    mark_broken(connection, ReadEnd::failed, errno);
  }
  return WriteOutcome::failed;
}

ssize_t send_once(int fd, std::span<const std::byte> head,
                  std::span<const std::byte> message) noexcept
{
  if (head.empty()) {
    return send(fd, message.data(), message.size(), send_flags);
  }
  if (head.size() + message.size() <= copied_frame) {
    std::byte frame[copied_frame];
    std::memcpy(frame, head.data(), head.size());
    std::memcpy(frame + head.size(), message.data(), message.size());
    return send(fd, frame, head.size() + message.size(), send_flags);
  }
  iovec parts[2] = {{const_cast<std::byte*>(head.data()), head.size()},
                    {const_cast<std::byte*>(message.data()), message.size()}};
  msghdr header{};
  header.msg_iov = parts;
  header.msg_iovlen = 2;
  return sendmsg(fd, &header, send_flags);
}

} // namespace

void mark_broken(Connection& connection, ReadEnd why, int error) noexcept
{
  if (!connection.broken) {
    connection.broken = true;
    connection.ending = why;
    connection.error = error;
  }
}

ReadReport read_frames(Connection& connection, MessageSink& sink, PeerHandle sender,
                       std::size_t budget, bool wait) noexcept
{
  ReadReport report;
  FrameReader& reader = connection.reader;
  bool drained = false;
  for (;;) {
    while (report.delivered < budget) {
      const auto message = reader.next();
      if (!message) {
        break;
      }
      sink.on_message({*message, 1, message->size() + frame_header_size, sender});
      ++report.delivered;
    }
    if (report.delivered >= budget || drained) {
      return report;
    }
    const std::span<std::byte> space = reader.space();
    if (space.empty()) {
      report.end = end_of(reader.error());
      report.announced = reader.announced();
      return report;
    }
    const int flags = wait && report.delivered == 0 ? 0 : MSG_DONTWAIT;
    const ssize_t got = recv(connection.fd.get(), space.data(), space.size(), flags);
    if (got > 0) {
      reader.filled(static_cast<std::size_t>(got));
      drained = static_cast<std::size_t>(got) < space.size();
    } else if (got == 0) {
      report.end = reader.partial_bytes() > 0 ? ReadEnd::mid_frame : ReadEnd::closed;
      return report;
    } else if (stop_after_error(report)) {
      return report;
    }
  }
}

ReadReport read_records(Connection& connection, std::span<std::byte> buffer, MessageSink& sink,
                        PeerHandle sender, std::size_t budget, bool wait) noexcept
{
  ReadReport report;
  while (report.delivered < budget) {
    // recv, not recvmsg: it imports no msghdr and iovec, and a spinning receiver makes this
    // call over and over. MSG_TRUNC: the record's real length, so one longer than the buffer
    // is known for what it is.
    const int flags = (wait && report.delivered == 0 ? 0 : MSG_DONTWAIT) | MSG_TRUNC;
    const ssize_t got = recv(connection.fd.get(), buffer.data(), buffer.size(), flags);
    if (got > 0 && static_cast<std::size_t>(got) <= buffer.size()) {
      const std::span<const std::byte> message = buffer.first(static_cast<std::size_t>(got));
      sink.on_message({message, 1, message.size(), sender});
      ++report.delivered;
      // One record a call: whether another waits is known only by reading again, and that
      // empty read would sit between this message and whatever the core does about it (a
      // publisher's next probe). The connection stays readable, so the next receive() reads
      // it first, without a poll: as many reads overall.
      report.more = true;
      return report;
    } else if (got > 0) {
      report.end = ReadEnd::too_large;
      report.announced = static_cast<std::uint64_t>(got);
      return report;
    } else if (got == 0) {
      // A peer's end of the connection; netprof never sends an empty record.
      report.end = ReadEnd::closed;
      return report;
    } else if (stop_after_error(report)) {
      return report;
    }
  }
  return report;
}

WriteOutcome write_message(Connection& connection, std::span<const std::byte> message,
                           Framing framing, bool may_queue) noexcept
{
  if (framing == Framing::kernel_records && connection.pending.empty()) {
    // The usual case, a stream's every message: one send of the record, whole or not at all.
    for (;;) {
      if (send(connection.fd.get(), message.data(), message.size(), send_flags) >= 0) {
        return WriteOutcome::written;
      }
      if (errno != EINTR) {
        return after_send_error(connection, {}, message, may_queue);
      }
    }
  }
  const FrameHeader frame = encode_frame_header(static_cast<std::uint32_t>(message.size()));
  const std::span<const std::byte> head = framing == Framing::length_prefixed
                                              ? std::span<const std::byte>(frame)
                                              : std::span<const std::byte>();
  const int fd = connection.fd.get();
  if (!connection.pending.empty()) {
    if (connection.pending.write_to(fd) == PendingOutput::Flush::failed) {
      mark_broken(connection, ReadEnd::failed, errno);
      return WriteOutcome::failed;
    }
    if (!connection.pending.empty()) {
      return connection.pending.has_room(head.size() + message.size())
                 ? queue(connection, head, message)
                 : WriteOutcome::blocked;
    }
  }
  for (;;) {
    const ssize_t sent = send_once(fd, head, message);
    const std::size_t total = head.size() + message.size();
    if (sent >= 0 && (static_cast<std::size_t>(sent) == total || head.empty())) {
      return WriteOutcome::written; // a record goes whole or not at all
    }
    if (sent >= 0) {
      return queue_rest(connection, head, message, static_cast<std::size_t>(sent));
    }
    if (errno != EINTR) {
      return after_send_error(connection, head, message, may_queue);
    }
  }
}

void close_after_peer(transport_common::UniqueFd fd, Nanoseconds limit) noexcept
{
  if (shutdown(fd.get(), SHUT_WR) != 0) {
    return; // not connected any more: nothing to say goodbye to
  }
  const auto deadline = Clock::now() + limit;
  std::byte dropped[4096];
  for (;;) {
    const ssize_t got = recv(fd.get(), dropped, sizeof dropped, MSG_DONTWAIT);
    if (got > 0 || (got < 0 && errno == EINTR)) {
      continue;
    }
    if (got == 0 || !would_block(errno)) {
      return; // the peer closed its end (or reset it: nothing more to wait for)
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      return;
    }
    pollfd entry{fd.get(), POLLIN, 0};
    const timespec wait = transport_common::timespec_of(deadline - now);
    if (ppoll(&entry, 1, &wait, nullptr) < 0 && errno != EINTR) {
      return;
    }
  }
}

} // namespace netprof::stream
