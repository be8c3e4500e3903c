// NngEndpoint: its sockets set up and torn down, and its facts (its traffic is in
// nng_endpoint_io.cpp).

#include "nng_endpoint.hpp"
#include "nng_socket.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

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
