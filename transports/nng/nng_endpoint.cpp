#include "nng_endpoint.hpp"
#include "nng_socket.hpp"

#include <netprof/errors.hpp>

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace netprof::nng_parts {

namespace {

// NNG's largest queue, in messages (NNG_OPT_SENDBUF, NNG_OPT_RECVBUF).
constexpr int max_queue_messages = 8192;
constexpr int min_queue_messages = 16;
constexpr int default_queue_messages = 128;

// SP over tcp frames each message with an 8-byte length; ipc adds a type byte in front.
constexpr std::size_t tcp_framing = 8;
constexpr std::size_t ipc_framing = 9;

struct Protocols {
  Protocol data;
  Protocol back;
};

// What a receive's result means: nothing came (or a signal), or the socket failed.
bool nothing_came(int result) noexcept
{
  // NNG_ECANCELED: a control message woke the wait (NngEndpoint::on_control_message).
  return result == NNG_ETIMEDOUT || result == NNG_EAGAIN || result == NNG_EINTR ||
         result == NNG_ECANCELED;
}

// Control messages waiting at once, beyond which the vectors holding them grow on NNG's thread.
constexpr std::size_t control_messages_expected = 64;

Protocols protocols_of(Pattern pattern, bool publisher)
{
  switch (pattern) {
  case Pattern::pubsub:
    return publisher ? Protocols{Protocol::pub0, Protocol::pull0}
                     : Protocols{Protocol::sub0, Protocol::push0};
  case Pattern::pushpull:
    return publisher ? Protocols{Protocol::push0, Protocol::pull0}
                     : Protocols{Protocol::pull0, Protocol::push0};
  case Pattern::pair:
    break;
  }
  return {Protocol::pair0, Protocol::pair0};
}

} // namespace

const char* pattern_name(Pattern pattern) noexcept
{
  switch (pattern) {
  case Pattern::pubsub:
    return "pubsub";
  case Pattern::pushpull:
    return "pushpull";
  case Pattern::pair:
    return "pair";
  }
  return "?";
}

int queue_messages(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept
{
  if (queue_length_bytes == 0) {
    return default_queue_messages;
  }
  const std::size_t size = std::max<std::size_t>(message_bytes, 1);
  const std::size_t messages = queue_length_bytes / size + (queue_length_bytes % size != 0);
  return static_cast<int>(std::clamp<std::size_t>(messages, min_queue_messages,
                                                  static_cast<std::size_t>(max_queue_messages)));
}

NngEndpoint::NngEndpoint(const EndpointSettings& settings)
    : m_pattern(settings.pattern), m_publisher(settings.role == Role::publisher),
      m_data_address(settings.data),
      m_round_robin(settings.round_robin && settings.pattern == Pattern::pushpull &&
                    settings.role == Role::publisher),
      m_max_message_size(max_payload_size + settings.header_bytes),
      m_queue_messages(queue_messages(settings.queue_length_bytes, settings.message_bytes)),
      m_framing_bytes(settings.data.scheme == Scheme::tcp ? tcp_framing : ipc_framing),
      m_requested_buffer_bytes(settings.queue_length_bytes)
{
  const Protocols protocols = protocols_of(m_pattern, m_publisher);
  const bool two_sockets = m_pattern != Pattern::pair;
  // The publisher reads only control messages, so a stranger's frame larger than the largest
  // of them closes its connection before NNG allocates it; a subscriber reads data of the
  // publisher's -s, which it does not know, so up to the largest message there is.
  m_receive_limit = m_publisher && settings.largest_control_message > 0
                        ? settings.largest_control_message
                        : m_max_message_size;

  m_data = std::make_unique<NngSocket>(protocols.data);
  m_data->configure(m_receive_limit, m_queue_messages);
  if (two_sockets) {
    m_back_address = back_channel_address(settings.data);
    m_back = std::make_unique<NngSocket>(protocols.back);
    m_back->configure(m_receive_limit, m_queue_messages);
  }
  if (m_pattern == Pattern::pushpull) {
    m_control_address = control_channel_address(settings.data);
    m_control = std::make_unique<NngSocket>(m_publisher ? Protocol::pub0 : Protocol::sub0);
    m_control->configure(m_receive_limit, m_queue_messages);
  }
  if (m_publisher && m_pattern != Pattern::pubsub && !m_round_robin) {
    // pair0 keeps one peer by itself; push0 would deal the data out among several.
    m_data->accept_at_most(1);
  }
  const bool removed_stale = listen_or_dial();
  m_sender = m_publisher || !m_back ? m_data.get() : m_back.get();
  m_receiver = m_publisher && m_back ? m_back.get() : m_data.get();
  if (const int allocated = nng_aio_alloc(&m_aio, nullptr, nullptr); allocated != 0) {
    throw TransportError(std::string("cannot allocate an NNG aio: ") + nng_strerror(allocated));
  }
  if (!m_publisher && m_control) {
    start_control_receive();
  }

  note_setup(protocols.data, protocols.back, removed_stale);
}

void NngEndpoint::start_control_receive()
{
  m_control_waiting.reserve(control_messages_expected);
  m_control_taken.reserve(control_messages_expected);
  if (const int allocated = nng_aio_alloc(&m_control_aio, &NngEndpoint::on_control_message, this);
      allocated != 0) {
    nng_aio_free(m_aio); // the destructor does not run for a constructor that throws
    throw TransportError(std::string("cannot allocate an NNG aio: ") + nng_strerror(allocated));
  }
  nng_recv_aio(m_control->handle(), m_control_aio);
}

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

bool NngEndpoint::listen_or_dial()
{
  bool removed_stale = false;
  if (m_publisher) {
    removed_stale = m_data->listen(m_data_address);
    if (m_back) {
      removed_stale = m_back->listen(m_back_address) || removed_stale;
    }
    if (m_control) {
      removed_stale = m_control->listen(m_control_address) || removed_stale;
    }
  } else {
    // The data and control first, so that they are connected before the first hello can
    // reach the publisher.
    m_data->dial(m_data_address);
    if (m_control) {
      m_control->dial(m_control_address);
    }
    if (m_back) {
      m_back->dial(m_back_address);
    }
  }
  return removed_stale;
}

void NngEndpoint::note_setup(Protocol data, Protocol back, bool removed_stale)
{
  const std::string back_channel = m_back ? std::string(protocol_name(back)) +
                                                (m_publisher ? " <- push0" : " -> pull0") + " at " +
                                                m_back_address.url
                                          : "the same pair0 connection";
  m_notes.push_back(std::string("NNG ") + nng_version() + ", --nng-pattern " +
                    pattern_name(m_pattern) + ": data over " + protocol_name(data) +
                    ", back channel over " + back_channel);
  if (m_control) {
    m_notes.push_back(std::string("control channel over ") +
                      (m_publisher ? "pub0 -> sub0" : "sub0 <- pub0") + " at " +
                      m_control_address.url +
                      (m_round_robin ? ": acknowledgements and challenges to every subscriber; "
                                       "push0 deals the data and END to the next subscriber "
                                       "ready for one"
                                     : ""));
  }
  m_notes.push_back("reads messages of at most " + std::to_string(m_receive_limit) +
                    " B (NNG_OPT_RECVMAXSZ; a larger one closes its connection); queues of " +
                    std::to_string(m_queue_messages) + " messages (NNG_OPT_SENDBUF/RECVBUF)");
  if (m_pattern == Pattern::pubsub && m_publisher) {
    m_notes.push_back("pub0 drops a message for a subscriber whose queue is full: it shows as "
                      "loss");
  }
  if (removed_stale) {
    m_notes.push_back("removed a stale ipc socket file (left by an earlier run: nobody was "
                      "listening on it)");
  }
}

NngEndpoint::~NngEndpoint()
{
  // Before the sockets close: nothing may still be waiting. The control receive first, whose
  // callback wakes the data receive.
  if (m_control_aio != nullptr) {
    nng_aio_stop(m_control_aio);
    nng_aio_free(m_control_aio);
    for (nng_msg* message : m_control_waiting) {
      nng_msg_free(message);
    }
  }
  nng_aio_free(m_aio);
  constexpr std::chrono::seconds close_limit{2};
  bool closed = close_within(std::move(m_back), close_limit);
  closed = close_within(std::move(m_control), close_limit) && closed;
  closed = close_within(std::move(m_data), close_limit) && closed;
  if (!closed) {
    std::fputs("netprof: nng: a socket did not close within 2 s (NNG 1.5's nng_close can wait "
               "for a departing peer's pipe); it is left to the process's exit\n",
               stderr);
  }
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

EndpointFacts NngEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "nng";
  if (m_publisher) {
    facts.local_addresses.push_back(m_data_address.url);
    if (m_back) {
      facts.local_addresses.push_back(m_back_address.url);
    }
    if (m_control) {
      facts.local_addresses.push_back(m_control_address.url);
    }
  } else {
    const std::string own = m_data->latest_local_address();
    facts.local_addresses.push_back(
        own.empty() || own == "ipc://" ? "dialler of " + m_data_address.url : own);
    facts.peer_addresses.push_back(m_data_address.url);
    if (m_back) {
      facts.peer_addresses.push_back(m_back_address.url);
    }
    if (m_control) {
      facts.peer_addresses.push_back(m_control_address.url);
    }
  }
  facts.max_message_size = m_max_message_size;
  facts.size_hint = "NNG carries up to 16 MiB of payload here";
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.notes = m_notes;
  if (m_publisher) {
    facts.peak_connections = m_data->peak_connections();
    facts.notes.push_back("data connections: at most " +
                          std::to_string(m_data->peak_connections()) + " at once");
    if (const std::size_t refused = m_data->refused_connections(); refused > 0) {
      facts.diagnoses.push_back("refused " + std::to_string(refused) +
                                " connection(s) beyond the one subscriber --nng-pattern " +
                                pattern_name(m_pattern) + " takes");
    }
    if (const std::size_t evicted = m_data->evicted_connections(); evicted > 0) {
      facts.notes.push_back("closed " + std::to_string(evicted) +
                            " connection(s) that held the subscriber's place unproven for " +
                            std::to_string(NngSocket::unproven_hold.count()) +
                            " ms (a stranger, or a subscriber of another run)");
    }
  }
  return facts;
}

} // namespace netprof::nng_parts
