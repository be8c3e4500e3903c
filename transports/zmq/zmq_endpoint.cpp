#include "zmq_endpoint.hpp"

#include <netprof/errors.hpp>

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>

namespace netprof::zeromq {

namespace {

bool needs_escape(std::span<const std::byte> message) noexcept
{
  return !message.empty() && static_cast<unsigned char>(message.front()) <= escape_byte;
}

// inproc:// joins sockets of one context only: an endpoint with an inproc:// address lives in
// the one this process shares.
std::shared_ptr<ZmqContext> context_for(const EndpointSettings& settings)
{
  const auto inproc = [](const Address& address) { return address.scheme == Scheme::inproc; };
  const bool any_inproc =
      inproc(settings.own) || std::any_of(settings.peers.begin(), settings.peers.end(), inproc);
  return any_inproc ? ZmqContext::shared_in_process(settings.io_threads)
                    : ZmqContext::own(settings.io_threads);
}

} // namespace

int high_water_mark(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept
{
  if (queue_length_bytes == 0) {
    return default_high_water_mark;
  }
  const std::size_t size = std::max<std::size_t>(message_bytes, 1);
  const std::size_t messages = queue_length_bytes / size + (queue_length_bytes % size != 0);
  return static_cast<int>(
      std::clamp<std::size_t>(messages, min_high_water_mark, static_cast<std::size_t>(INT_MAX)));
}

int high_water_mark(const EndpointSettings& settings) noexcept
{
  return settings.history_depth > 0
             ? settings.history_depth
             : high_water_mark(settings.queue_length_bytes, settings.message_bytes);
}

ZmqEndpoint::ZmqEndpoint(const EndpointSettings& settings)
    : m_zero_copy_from(settings.zero_copy_from), m_header_bytes(settings.header_bytes),
      m_max_message_size(max_payload_size + settings.header_bytes),
      m_context(context_for(settings)), m_publisher(settings.role == Role::publisher)
{
  try {
    m_socket = zmq::socket_t(m_context->context(),
                             m_publisher ? zmq::socket_type::xpub : zmq::socket_type::xsub);
    m_handle = m_socket.handle();
    configure(settings);
    if (!m_publisher) {
      // Subscribe to everything before any connection exists: the XSUB then sends the
      // subscription first on every connection it makes, ahead of any hello.
      const unsigned char subscribe_all = 1;
      m_socket.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
    }
    bind_own(m_socket, settings.own, m_bound_limit);
    connect_peers(m_socket, settings.peers, m_connected_limit);
    m_inboxes[0] = {m_handle, m_socket.get(zmq::sockopt::fd), false};
    m_send_handle = m_handle;
    if (settings.pattern == Pattern::pushpull) {
      open_deal_socket(settings);
      if (m_publisher && !settings.round_robin) {
        m_send_handle = m_deal_handle;
      }
      if (!m_publisher) {
        m_inboxes[1] = {m_deal_handle, m_deal_socket.get(zmq::sockopt::fd), false};
        m_inbox_count = 2;
      }
    }
  } catch (const zmq::error_t& error) {
    throw TransportError(std::string("cannot set up the ZeroMQ socket: ") + error.what());
  }
  zmq_msg_init(&m_received);
}

ZmqEndpoint::~ZmqEndpoint()
{
  zmq_msg_close(&m_received);
  for (const OwnFile& file : m_own_files) {
    remove_if_same_file(file.path, file.identity);
  }
}

SendOutcome ZmqEndpoint::send(std::span<const std::byte> message) noexcept
{
  return send_data(m_send_handle, message);
}

SendOutcome ZmqEndpoint::deal(std::span<const std::byte> message) noexcept
{
  return send_data(m_deal_handle != nullptr ? m_deal_handle : m_handle, message);
}

SendOutcome ZmqEndpoint::send_data(void* handle, std::span<const std::byte> message) noexcept
{
  if (message.size() > m_max_message_size) {
    return {SendResult::failed, SendCause::error};
  }
  if (handle == m_handle) {
    // zmq_send may process the socket's commands, and with them ZMQ_FD's signal.
    m_inboxes[0].dry = false;
  }
  if (m_zero_copy && ends_with_kept_payload(message)) {
    // A data message: zmq_send would copy the bytes into ZeroMQ's own message before
    // returning, as it must, since the core rewrites this header for the next message at once.
    // A buffer of our own holding a copy of the payload can be lent instead (send_lent).
    return outcome(send_lent(handle, message));
  }
  if (!m_publisher && needs_escape(message)) {
    return outcome(send_escaped(message));
  }
  return outcome(zmq_send(handle, message.data(), message.size(), ZMQ_DONTWAIT));
}

bool ZmqEndpoint::ends_with_kept_payload(std::span<const std::byte> message) const noexcept
{
  // The very bytes the core said it keeps (PayloadKeeper): compared by place, not content.
  return message.size() >= m_zero_copy->payload_size() &&
         message.data() + message.size() == m_kept_payload_end;
}

SendOutcome ZmqEndpoint::outcome(int sent) noexcept
{
  if (sent >= 0) {
    return {};
  }
  const int error = zmq_errno();
  if (error == EAGAIN) {
    // The high-water mark under --zmq-nodrop. What drains the queue is ZeroMQ's I/O thread,
    // which shares this thread's CPU once --cpu pinned it; the core retries at once, so give
    // the CPU away first, or the retries starve the very thread they wait for.
    sched_yield();
    return {SendResult::back_pressured, SendCause::high_water_mark};
  }
  // EINTR: a signal; the core looks at its stop flag and tries again.
  if (error == EINTR) {
    return {SendResult::back_pressured, SendCause::interrupted};
  }
  return {SendResult::failed, SendCause::error};
}

void ZmqEndpoint::keep_payload(std::span<const std::byte> payload)
{
  if (m_publisher && m_zero_copy_from > 0 && payload.size() >= m_zero_copy_from) {
    m_zero_copy = std::make_shared<ZeroCopyPool>(
        payload, zero_copy_buffers(m_high_water_mark, payload.size() + m_header_bytes));
    m_context->keep_until_ended(m_zero_copy);
    m_kept_payload_end = payload.data() + payload.size();
  }
}

std::size_t ZmqEndpoint::zero_copy_buffers(int high_water_mark, std::size_t message_bytes) noexcept
{
  const std::size_t queued = static_cast<std::size_t>(std::max(high_water_mark, 0)) + 2;
  const std::size_t affordable = zero_copy_memory_budget / std::max<std::size_t>(message_bytes, 1);
  return std::max(min_zero_copy_buffers, std::min(queued, affordable));
}

int ZmqEndpoint::send_lent(void* handle, std::span<const std::byte> message) noexcept
{
  zmq_msg_t lent;
  if (!m_zero_copy->lend(lent, message.first(message.size() - m_zero_copy->payload_size()))) {
    const int sent = zmq_send(handle, message.data(), message.size(), ZMQ_DONTWAIT);
    m_sent_copied += sent >= 0 ? 1 : 0;
    return sent;
  }
  const int sent = zmq_msg_send(&lent, handle, ZMQ_DONTWAIT);
  if (sent < 0) {
    const int error = zmq_errno();
    zmq_msg_close(&lent); // hands the buffer straight back
    errno = error;
    return sent;
  }
  ++m_sent_lent;
  return sent;
}

int ZmqEndpoint::send_escaped(std::span<const std::byte> message) noexcept
{
  // Only foreign bytes come here (never netprof's own messages), and zmq_send would have
  // allocated a message of this size just the same.
  zmq_msg_t escaped;
  if (zmq_msg_init_size(&escaped, message.size() + 1) != 0) {
    return -1;
  }
  auto* bytes = static_cast<unsigned char*>(zmq_msg_data(&escaped));
  bytes[0] = escape_byte;
  std::memcpy(bytes + 1, message.data(), message.size());
  const int sent = zmq_msg_send(&escaped, m_handle, ZMQ_DONTWAIT);
  if (sent < 0) {
    const int error = zmq_errno();
    zmq_msg_close(&escaped);
    errno = error;
  }
  return sent;
}

std::vector<std::string> ZmqEndpoint::diagnoses() const
{
  std::vector<std::string> found;
  if (m_curve && m_messages_in == 0) {
    found.push_back(m_publisher ? "nobody got through --zmq-curve: only a process given the same "
                                  "key file can connect (a subscriber with another key, or "
                                  "none, is refused at the handshake)"
                                : "no publisher got through --zmq-curve: only one given the same "
                                  "key file can answer (were both given the same file?)");
  }
  return found;
}

EndpointFacts ZmqEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "zmq";
  facts.local_addresses = m_local_addresses;
  facts.peer_addresses = m_peer_addresses;
  facts.max_message_size = m_max_message_size;
  facts.requested_buffer_bytes = m_requested_buffer_bytes;
  facts.granted_send_buffer_bytes = m_granted_send_buffer_bytes;
  facts.granted_receive_buffer_bytes = m_granted_receive_buffer_bytes;
  facts.capabilities.lends_announced_payload = m_publisher && m_zero_copy_from > 0;
  facts.notes = m_notes;
  facts.diagnoses = diagnoses();
  if (m_publisher) {
    facts.peak_connections = m_peak_subscribed;
    facts.notes.push_back("connections subscribed: at most " + std::to_string(m_peak_subscribed) +
                          " at once (one per ZeroMQ SUB connection, whoever it is; under "
                          "--zmq-nodrop each must read, or the publisher waits)");
  }
  if (m_zero_copy) {
    // Read at the end of a run: how the data messages actually went.
    facts.notes.push_back("zero-copy sends: " + std::to_string(m_sent_lent) + " of " +
                          std::to_string(m_sent_lent + m_sent_copied) + " data messages, from " +
                          std::to_string(m_zero_copy->buffers()) + " buffers lent to ZeroMQ (" +
                          std::to_string(m_sent_copied) + " copied while every buffer was lent)");
  }
  return facts;
}

} // namespace netprof::zeromq
