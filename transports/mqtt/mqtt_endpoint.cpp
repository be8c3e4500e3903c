#include "mqtt_endpoint.hpp"

#include "common/broker_wire_bytes.hpp"
#include "common/socket_wait.hpp"

#include <netprof/errors.hpp>

#include <mosquitto.h>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string_view>

namespace netprof::mqtt_parts {

using namespace std::chrono_literals;

namespace {

// How long send() goes on writing a message larger than the socket takes at once.
constexpr auto finish_within = std::chrono::milliseconds(1000);

} // namespace

std::size_t publish_packet_bytes(std::size_t topic_length, std::size_t payload, int qos) noexcept
{
  const std::size_t remaining = 2 + topic_length + (qos > 0 ? 2 : 0) + payload;
  // The remaining length is a variable byte integer: a byte per base-128 digit.
  return 1 + transport_common::digits_in_base<128>(remaining) + remaining;
}

void MqttEndpoint::on_publish() noexcept
{
  if (m_settings.qos > 0 && m_unacknowledged > 0)
    --m_unacknowledged;
}

PeerHandle MqttEndpoint::sender_of(const char* topic) noexcept
{
  if (m_settings.role == Role::subscriber)
    return PeerHandle{1}; // the publisher: only it publishes data
  return m_senders.of(std::string_view(topic));
}

void MqttEndpoint::on_message(const mosquitto_message& message) noexcept
{
  if (message.topic != nullptr && message.topic[0] == '$') {
    if (m_broker_version.empty() && message.payloadlen > 0) {
      try {
        m_broker_version.assign(static_cast<const char*>(message.payload),
                                static_cast<std::size_t>(message.payloadlen));
      } catch (...) {
      }
    }
    return;
  }
  if (m_sink == nullptr)
    return; // setup: nothing of the run can have been sent yet
  const std::size_t size = static_cast<std::size_t>(message.payloadlen);
  Delivery delivery;
  delivery.bytes = {static_cast<const std::byte*>(message.payload), size};
  delivery.datagrams = 1;
  delivery.wire_bytes = publish_packet_bytes(
      message.topic != nullptr ? std::strlen(message.topic) : 0, size, message.qos);
  delivery.sender = sender_of(message.topic != nullptr ? message.topic : "");
  // libmosquitto decides from errno whether its read drained the socket: keep the sink's out.
  const int saved = errno;
  m_in_callback = true;
  m_sink->on_message(delivery);
  m_in_callback = false;
  errno = saved;
  ++m_delivered;
}

void MqttEndpoint::fail(int rc) noexcept
{
  if (m_failed)
    return;
  m_failed = true;
  try {
    const std::string broker = m_settings.host + ":" + std::to_string(m_settings.port);
    m_failure =
        rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_NO_CONN
            ? "the connection to the MQTT broker at " + broker + " was lost (did the broker stop?)"
            : "the MQTT connection to the broker at " + broker + " failed: " + mqtt_error_text(rc);
    m_diagnoses.push_back(m_failure);
  } catch (...) {
  }
}

bool MqttEndpoint::write_pending() noexcept
{
  // Inside on_message libmosquitto holds its locks: what is queued is written once the read
  // returns (service() does), never from here.
  if (m_in_callback || !mosquitto_want_write(m_client))
    return true;
  const int rc = mosquitto_loop_write(m_client, 1);
  if (rc != MOSQ_ERR_SUCCESS) {
    fail(rc);
    return false;
  }
  return true;
}

void MqttEndpoint::finish_writing(Nanoseconds within) noexcept
{
  const auto deadline = Clock::now() + within;
  while (!m_failed && mosquitto_want_write(m_client)) {
    const auto now = Clock::now();
    if (now >= deadline)
      return;
    pollfd watched{mosquitto_socket(m_client), POLLOUT, 0};
    const Nanoseconds wait = deadline - now;
    const timespec limit = transport_common::timespec_of(wait);
    if (watched.fd < 0 || ppoll(&watched, 1, &limit, nullptr) <= 0)
      return;
    if (!write_pending())
      return;
  }
}

// -1: the connection failed; 0: nothing to read within `wait`; 1: a packet was read.
int MqttEndpoint::service(Nanoseconds wait) noexcept
{
  if (m_failed)
    return -1;
  const int fd = mosquitto_socket(m_client);
  if (fd < 0) {
    fail(MOSQ_ERR_NO_CONN);
    return -1;
  }
  pollfd watched{fd, POLLIN, 0};
  const timespec limit = transport_common::timespec_of(wait);
  const int ready = ppoll(&watched, 1, &limit, nullptr);
  if (ready <= 0)
    return 0; // timed out, or a signal: the caller looks at its deadline
  errno = 0;
  const int rc = mosquitto_loop_read(m_client, 1);
  if (rc != MOSQ_ERR_SUCCESS) {
    fail(rc);
    return -1;
  }
  return write_pending() ? 1 : -1;
}

ReceiveResult MqttEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (m_failed || !write_pending())
    return ReceiveResult::failed;
  const auto now = Clock::now();
  if (now >= m_next_misc) {
    // Keep-alive: PINGREQ when due, and a broker silent too long counts as lost.
    const int rc = mosquitto_loop_misc(m_client);
    if (rc != MOSQ_ERR_SUCCESS) {
      fail(rc);
      return ReceiveResult::failed;
    }
    m_next_misc = now + std::chrono::seconds(1);
  }
  m_sink = &sink;
  m_delivered = 0;
  const auto deadline = now + timeout;
  // Bounded: acknowledgements count as packets read, so a stream of them cannot hold us here.
  for (int packets = 0; packets < 4 * receive_batch && m_delivered < receive_batch; ++packets) {
    Nanoseconds wait{0};
    if (m_delivered == 0 && timeout > Nanoseconds::zero())
      wait = std::max(Nanoseconds::zero(), deadline - Clock::now());
    const int read = service(wait);
    if (read < 0) {
      m_sink = nullptr;
      return m_delivered > 0 ? ReceiveResult::received : ReceiveResult::failed;
    }
    if (read == 0 && (m_delivered > 0 || wait == Nanoseconds::zero() || Clock::now() >= deadline))
      break;
  }
  m_sink = nullptr;
  return m_delivered > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

SendOutcome MqttEndpoint::send(std::span<const std::byte> message) noexcept
{
  if (m_failed)
    return {SendResult::failed, SendCause::error};
  if (message.size() > max_payload_size)
    return {SendResult::failed, SendCause::error};
  if (m_settings.qos > 0 && m_unacknowledged >= m_settings.window)
    return {SendResult::back_pressured, SendCause::queue_full};
  const int rc =
      mosquitto_publish(m_client, nullptr, m_publish_topic.c_str(),
                        static_cast<int>(message.size()), message.data(), m_settings.qos, false);
  if (rc == MOSQ_ERR_SUCCESS) {
    if (m_settings.qos > 0)
      ++m_unacknowledged;
    // A message larger than the socket takes at once: its rest is written here, as a blocking
    // MQTT client's publish would, for a bounded while; flush() or receive() writes what is left.
    if (!m_in_callback && mosquitto_want_write(m_client))
      finish_writing(finish_within);
    return {};
  }
  if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO)
    fail(rc);
  return {SendResult::failed, SendCause::error};
}

SendOutcome MqttEndpoint::flush() noexcept
{
  if (m_failed || !write_pending())
    return {SendResult::failed, SendCause::error};
  if (!m_in_callback && mosquitto_want_write(m_client))
    return {SendResult::back_pressured, SendCause::would_block};
  return {};
}

EndpointFacts MqttEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "mqtt";
  facts.local_addresses = {"client " + m_client_id + " (topics " + m_settings.prefix + "/...)"};
  facts.peer_addresses = {"broker " + m_settings.host + ":" + std::to_string(m_settings.port)};
  facts.max_message_size = max_payload_size;
  facts.size_hint = "MQTT carries up to 256 MiB; netprof sends at most 16 MiB per message";
  facts.requested_buffer_bytes = m_settings.requested_buffer_bytes;
  facts.notes = m_notes;
  facts.diagnoses = m_diagnoses;
  return facts;
}

} // namespace netprof::mqtt_parts
