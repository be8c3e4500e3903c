#include "zmq_endpoint.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <optional>

// A ZmqEndpoint's receiving side: draining its inboxes (the XPUB/XSUB, and a pushpull
// subscriber's PULL) and waiting on their ZMQ_FDs. Setting up is in zmq_socket_setup.cpp, sending
// in zmq_endpoint.cpp.

namespace netprof::zeromq {

namespace {

// ZMTP 3 frames a message with a flags byte and its size: one byte up to 255, else eight.
constexpr std::size_t zmtp_wire_bytes(std::size_t size) noexcept
{
  return size + (size <= 255 ? 2 : 9);
}

} // namespace

ZmqEndpoint::Drained ZmqEndpoint::drain(Inbox& inbox, MessageSink& sink) noexcept
{
  Drained drained;
  for (int i = 0; i < receive_batch; ++i) {
    if (zmq_msg_recv(&m_received, inbox.handle, ZMQ_DONTWAIT) < 0) {
      const int error = zmq_errno();
      drained.end = error == EAGAIN
                        ? Drained::End::dry
                        : (error == EINTR ? Drained::End::interrupted : Drained::End::failed);
      inbox.dry = drained.end == Drained::End::dry;
      return drained;
    }
    const auto* data = static_cast<const std::byte*>(zmq_msg_data(&m_received));
    std::size_t size = zmq_msg_size(&m_received);
    const std::size_t wire_bytes = zmtp_wire_bytes(size);
    ++m_messages_in;
    if (m_publisher && size > 0) { // only its XPUB is read, where subscriptions come in
      const auto first = static_cast<unsigned char>(data[0]);
      if (first < escape_byte) {
        count_subscription(first == 1); // ZeroMQ's business, not the core's
        continue;
      }
      if (first == escape_byte) {
        ++data;
        --size;
      }
    }
    sink.on_message(Delivery{std::span<const std::byte>(data, size), 1, wire_bytes, PeerHandle{}});
    ++drained.delivered;
  }
  return drained;
}

bool ZmqEndpoint::all_dry() const noexcept
{
  return m_inboxes[0].dry && (m_inbox_count == 1 || m_inboxes[1].dry);
}

bool ZmqEndpoint::wait_for_signal(Nanoseconds timeout, std::optional<Clock::time_point>& deadline,
                                  ReceiveResult& result) noexcept
{
  timespec wait{0, 0};
  if (timeout > Nanoseconds::zero()) {
    if (!deadline) {
      // Capped so that a caller passing Nanoseconds::max() cannot overflow the deadline.
      deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
    }
    const Nanoseconds remaining = *deadline - Clock::now();
    if (remaining <= Nanoseconds::zero()) {
      result = ReceiveResult::timed_out;
      return false;
    }
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(remaining);
    wait = {static_cast<time_t>(seconds.count()), static_cast<long>((remaining - seconds).count())};
  }
  // Only the dry inboxes: one that is not has messages to drain already.
  pollfd wakeups[2];
  Inbox* polled[2];
  nfds_t count = 0;
  for (int i = 0; i < m_inbox_count; ++i) {
    if (m_inboxes[i].dry) {
      wakeups[count] = {m_inboxes[i].wakeup_fd, POLLIN, 0};
      polled[count++] = &m_inboxes[i];
    }
  }
  // ppoll rather than zmq_poll: nanoseconds, where zmq_poll rounds to milliseconds; and with a
  // zero timeout one system call, where an empty zmq_msg_recv costs three.
  const int ready = ppoll(wakeups, count, &wait, nullptr);
  if (ready > 0) {
    for (nfds_t i = 0; i < count; ++i) {
      // Signalled: the drain processes the commands, a message or not.
      polled[i]->dry = wakeups[i].revents == 0;
    }
    return true;
  }
  // EINTR: a signal (Ctrl-C) arrived; the core looks at its stop flag and calls again.
  result = ready == 0 || errno == EINTR ? ReceiveResult::timed_out : ReceiveResult::failed;
  return false;
}

ReceiveResult ZmqEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  std::optional<Clock::time_point> deadline;
  for (;;) {
    // A dry inbox had its commands processed and its pipes marked empty, and nothing has called
    // into its socket since (a send clears it: it may process commands itself). So a message can
    // only have arrived there if its ZMQ_FD was signalled, and looking at ZMQ_FD is enough. With
    // every inbox dry that is a wait of up to the timeout; with a busy one beside a dry one it is
    // a look, so that a stream of data never holds a control message back.
    if (all_dry()) {
      ReceiveResult result = ReceiveResult::timed_out;
      if (!wait_for_signal(timeout, deadline, result)) {
        return result;
      }
    } else if (m_inbox_count > 1 && (m_inboxes[0].dry || m_inboxes[1].dry)) {
      ReceiveResult ignored = ReceiveResult::timed_out;
      wait_for_signal(Nanoseconds::zero(), deadline, ignored);
    }
    int delivered = 0;
    bool interrupted = false;
    for (int i = 0; i < m_inbox_count; ++i) { // control before data
      if (m_inboxes[i].dry) {
        continue;
      }
      const Drained drained = drain(m_inboxes[i], sink);
      if (drained.end == Drained::End::failed) {
        return ReceiveResult::failed;
      }
      delivered += drained.delivered;
      interrupted = interrupted || drained.end == Drained::End::interrupted;
    }
    if (delivered > 0) {
      return ReceiveResult::received;
    }
    if (interrupted) {
      return ReceiveResult::timed_out; // the core looks at its stop flag and calls again
    }
    if (all_dry() && timeout <= Nanoseconds::zero()) {
      return ReceiveResult::timed_out;
    }
    // Dry with time left: wait on ZMQ_FD. A whole batch of subscriptions and nothing for the
    // core: look again.
  }
}

void ZmqEndpoint::count_subscription(bool subscribed) noexcept
{
  if (subscribed) {
    m_peak_subscribed = std::max(m_peak_subscribed, ++m_subscribed);
  } else if (m_subscribed > 0) {
    --m_subscribed;
  }
}

} // namespace netprof::zeromq
