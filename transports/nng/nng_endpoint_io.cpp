// NngEndpoint's traffic: sending and dealing, replying, and receiving data and control
// messages (the setup, teardown and facts are in nng_endpoint.cpp).

#include "nng_endpoint.hpp"
#include "nng_socket.hpp"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <ctime>

namespace netprof::nng_parts {

namespace {

// What a receive's result means: nothing came (or a signal), or the socket failed.
bool nothing_came(int result) noexcept
{
  // NNG_ECANCELED: a control message woke the wait (NngEndpoint::on_control_message).
  return result == NNG_ETIMEDOUT || result == NNG_EAGAIN || result == NNG_EINTR ||
         result == NNG_ECANCELED;
}

} // namespace

void NngEndpoint::on_control_message(void* self) noexcept
{
  auto* endpoint = static_cast<NngEndpoint*>(self);
  const int result = nng_aio_result(endpoint->m_control_aio);
  if (result == NNG_ECLOSED || result == NNG_ECANCELED) {
    return; // the endpoint is closing
  }
  if (result == 0) {
    {
      const std::lock_guard lock(endpoint->m_control_mutex);
      endpoint->m_control_waiting.push_back(nng_aio_get_msg(endpoint->m_control_aio));
    }
    endpoint->m_control_pending.store(true);
  }
  nng_recv_aio(endpoint->m_control->handle(), endpoint->m_control_aio);
  if (result == 0) {
    // A data receive waiting in NNG would not see it: woken, it hands it on (receive_one
    // cancels one that starts after this).
    nng_aio_cancel(endpoint->m_aio);
  }
}

bool NngEndpoint::deliver_control(MessageSink& sink) noexcept
{
  if (!m_control_pending.load()) {
    return false;
  }
  {
    const std::lock_guard lock(m_control_mutex);
    m_control_taken.swap(m_control_waiting);
    m_control_pending.store(false);
  }
  for (nng_msg* message : m_control_taken) {
    deliver(sink, message);
  }
  const bool delivered = !m_control_taken.empty();
  m_control_taken.clear();
  return delivered;
}

SendOutcome NngEndpoint::send(std::span<const std::byte> message) noexcept
{
  // Dealing the data, push0 would deal control messages too: those go to all over pub0.
  return send_over(m_round_robin ? *m_control : *m_sender, message);
}

SendOutcome NngEndpoint::deal(std::span<const std::byte> message) noexcept
{
  return send_over(*m_data, message);
}

SendOutcome NngEndpoint::send_over(NngSocket& socket, std::span<const std::byte> message) noexcept
{
  if (message.size() > m_max_message_size) {
    return {SendResult::failed, SendCause::error};
  }
  // Without NNG_FLAG_ALLOC nng_send copies the bytes and never writes to them; it takes a
  // non-const pointer only because the flag may hand the buffer over.
  void* bytes = const_cast<std::byte*>(message.data());
  m_empty_looks = 0;
  const int sent = nng_send(socket.handle(), bytes, message.size(), NNG_FLAG_NONBLOCK);
  if (sent == 0) {
    return {};
  }
  if (sent == NNG_EAGAIN) {
    // push0 and pair0 refuse a message that nobody connected could take; with nobody there at
    // all it is simply not heard, as the seam counts it.
    if (socket.connections() == 0) {
      return {};
    }
    sched_yield(); // NNG's own threads drain the queue, maybe on this CPU
    return {SendResult::back_pressured, SendCause::would_block};
  }
  if (sent == NNG_EINTR) {
    return {SendResult::back_pressured, SendCause::interrupted};
  }
  return {SendResult::failed, SendCause::error};
}

ReplyOutcome NngEndpoint::reply(PeerHandle sender, std::span<const std::byte> message,
                                PeerFate fate) noexcept
{
  const SendOutcome sent = send(message);
  if (fate != PeerFate::adopt)
    return {sent, false};
  // Nothing to adopt (each pattern reaches its subscribers by itself), but a proven
  // subscriber keeps its place where there is one (pair, push/pull).
  if (m_publisher && m_pattern == Pattern::pair) {
    m_data->prove(static_cast<std::uint32_t>(sender.value));
  } else if (m_publisher && m_pattern == Pattern::pushpull && !m_round_robin) {
    m_data->prove_holders();
  }
  return {sent, true};
}

int NngEndpoint::receive_one(nng_duration wait, nng_msg*& message) noexcept
{
  nng_aio_set_timeout(m_aio, wait);
  nng_recv_aio(m_receiver->handle(), m_aio);
  if (m_control_pending.load()) {
    nng_aio_cancel(m_aio); // came before the receive began, so its wake-up found none
  }
  nng_aio_wait(m_aio);
  const int result = nng_aio_result(m_aio);
  if (result == 0) {
    message = nng_aio_get_msg(m_aio);
  }
  return result;
}

void NngEndpoint::deliver(MessageSink& sink, nng_msg* message) noexcept
{
  const auto* body = static_cast<const std::byte*>(nng_msg_body(message));
  const std::size_t size = nng_msg_len(message);
  // The pipe id names the connection it came over; NNG never hands out 0 for a real one.
  const auto pipe = static_cast<std::uint64_t>(nng_msg_get_pipe(message).id);
  sink.on_message(
      Delivery{std::span<const std::byte>(body, size), 1, size + m_framing_bytes, {pipe}});
  nng_msg_free(message);
}

int NngEndpoint::drain(MessageSink& sink, int most) noexcept
{
  int delivered = 0;
  for (; delivered < most; ++delivered) {
    nng_msg* message = nullptr;
    const int got = receive_one(NNG_DURATION_ZERO, message);
    if (got != 0) {
      return nothing_came(got) ? delivered : -1;
    }
    deliver(sink, message);
  }
  return delivered;
}

bool NngEndpoint::wait_readable(Nanoseconds remaining) noexcept
{
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(remaining);
  const timespec wait{static_cast<time_t>(seconds.count()),
                      static_cast<long>((remaining - seconds).count())};
  // Asked for at the first wait that needs it, not when the socket opens: once a socket has
  // its receive descriptor, NNG writes to it as a message finds the queue empty and reads it
  // as a receive empties the queue, about 1.5 system calls a message on a subscriber's data
  // socket (perf stat: 70,148 read and 35,030 write in a 2-second push/pull stream, none in the
  // bare pull0 program's), and a subscriber whose waits are whole milliseconds never needs it.
  if (m_receive_fd < 0 &&
      nng_socket_get_int(m_receiver->handle(), NNG_OPT_RECVFD, &m_receive_fd) != 0) {
    m_receive_fd = -1;
    nanosleep(&wait, nullptr); // then the caller looks: a message that came meanwhile is there
    return true;
  }
  pollfd readable{m_receive_fd, POLLIN, 0};
  return ppoll(&readable, 1, &wait, nullptr) > 0;
}

ReceiveResult NngEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  // Capped so that a caller passing Nanoseconds::max() cannot overflow the deadline.
  const Nanoseconds capped = std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  if (deliver_control(sink)) {
    return ReceiveResult::received;
  }
  const auto deadline = Clock::now() + capped;
  // The first message: blocking in NNG for the whole milliseconds of the timeout (the core
  // cuts its waits into slices of 20 ms, so a stop request is never late by more).
  const auto whole_ms = std::chrono::duration_cast<std::chrono::milliseconds>(capped).count();
  nng_msg* first = nullptr;
  const int got =
      receive_one(whole_ms >= 1 ? static_cast<nng_duration>(whole_ms) : NNG_DURATION_ZERO, first);
  if (got == 0) {
    m_empty_looks = 0;
    // Only the one: a look for more after it (a zero-timeout aio) failed whenever the queue was
    // empty, one NNG call per message that a blocking pull0 program does not make. Pinned, the
    // push/pull stream went from 0.81x-0.88x a bare pair to 0.89x-0.94x without it.
    deliver(sink, first);
    return ReceiveResult::received;
  }
  if (!nothing_came(got)) {
    return ReceiveResult::failed;
  }
  if (deliver_control(sink)) {
    return ReceiveResult::received;
  }
  if (whole_ms < 1 && capped <= Nanoseconds::zero()) {
    // Looks that keep finding nothing: what would bring a message is NNG's own threads, which
    // may need this CPU (the core looks several times in a row before it sleeps, and spins
    // under --wait-strategy spin), so give it away before the core looks again. Not at the
    // first look after a send: a streaming publisher looks now and then between sends, and
    // yielding there let NNG's threads empty push0's queue each time, so that every send went
    // the slow way, straight to an idle connection (5 subscribers: 0.59x a bare sender).
    if (++m_empty_looks > 1) {
      sched_yield();
    }
    return ReceiveResult::timed_out;
  }
  // What is left under a millisecond: NNG's timeouts are whole milliseconds, its descriptor
  // is not.
  for (;;) {
    const Nanoseconds remaining = deadline - Clock::now();
    if (deliver_control(sink)) {
      return ReceiveResult::received;
    }
    if (remaining <= Nanoseconds::zero() || !wait_readable(remaining)) {
      return ReceiveResult::timed_out; // or a signal: the core looks at its stop flag
    }
    const int delivered = drain(sink, receive_batch);
    if (delivered != 0) {
      return delivered < 0 ? ReceiveResult::failed : ReceiveResult::received;
    }
  }
}

} // namespace netprof::nng_parts
