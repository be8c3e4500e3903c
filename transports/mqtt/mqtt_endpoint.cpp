#include "mqtt_endpoint.hpp"

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

constexpr int keepalive_seconds = 60;
constexpr auto version_within = std::chrono::milliseconds(300);
constexpr const char* version_topic = "$SYS/broker/version";
// Senders named at once by the publisher; beyond, echoes still arrive, unnamed.
constexpr std::size_t most_senders = 4096;
// How long send() goes on writing a message larger than the socket takes at once.
constexpr auto finish_within = std::chrono::milliseconds(1000);

void init_library()
{
  static std::once_flag once;
  std::call_once(once, [] { mosquitto_lib_init(); });
}

MqttEndpoint& endpoint_of(void* object)
{
  return *static_cast<MqttEndpoint*>(object);
}

std::string error_text(int rc)
{
  if (rc == MOSQ_ERR_ERRNO)
    return std::strerror(errno);
  return mosquitto_strerror(rc);
}

std::string client_id()
{
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  char text[64];
  std::snprintf(text, sizeof text, "netprof-%ld-%u-%08x", static_cast<long>(getpid()),
                counter.fetch_add(1), static_cast<unsigned>(random()));
  return text;
}

std::size_t varint_bytes(std::size_t value) noexcept
{
  std::size_t bytes = 1;
  while (value >= 128) {
    value /= 128;
    ++bytes;
  }
  return bytes;
}

} // namespace

std::uint64_t window_messages(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept
{
  if (queue_length_bytes == 0)
    return 1000;
  const std::uint64_t messages = queue_length_bytes / std::max<std::size_t>(message_bytes, 1);
  return std::clamp<std::uint64_t>(messages, 16, 65535);
}

std::size_t publish_packet_bytes(std::size_t topic_length, std::size_t payload, int qos) noexcept
{
  const std::size_t remaining = 2 + topic_length + (qos > 0 ? 2 : 0) + payload;
  return 1 + varint_bytes(remaining) + remaining;
}

MqttEndpoint::MqttEndpoint(const EndpointSettings& settings) : m_settings(settings)
{
  init_library();
  m_client_id = client_id();
  m_data_topic = settings.prefix + "/data";
  m_echo_prefix = settings.prefix + "/echo/";
  const bool publisher = settings.role == Role::publisher;
  m_publish_topic = publisher ? m_data_topic : m_echo_prefix + m_client_id;
  m_subscribe_topic = publisher ? m_echo_prefix + "+" : m_data_topic;
  m_senders.reserve(64);

  m_client = mosquitto_new(m_client_id.c_str(), true, this);
  if (m_client == nullptr)
    throw TransportError(std::string("cannot make an MQTT client: ") + std::strerror(errno));
  mosquitto_connect_callback_set(m_client, [](mosquitto*, void* object, int result) {
    endpoint_of(object).on_connect(result);
  });
  mosquitto_subscribe_callback_set(m_client, [](mosquitto*, void* object, int, int, const int*) {
    endpoint_of(object).on_subscribe();
  });
  mosquitto_publish_callback_set(
      m_client, [](mosquitto*, void* object, int) { endpoint_of(object).on_publish(); });
  mosquitto_message_callback_set(m_client,
                                 [](mosquitto*, void* object, const mosquitto_message* message) {
                                   endpoint_of(object).on_message(*message);
                                 });
  // libmosquitto leaves Nagle's algorithm on: a stream's messages would wait for the broker's
  // delayed ACKs (tens of ms), as no latency-minded MQTT client lets them.
  mosquitto_int_option(m_client, MOSQ_OPT_TCP_NODELAY, 1);
  if (settings.qos > 0)
    mosquitto_int_option(m_client, MOSQ_OPT_SEND_MAXIMUM,
                         static_cast<int>(std::min<std::uint64_t>(settings.window, 65535)));

  const std::string broker = settings.host + ":" + std::to_string(settings.port);
  const int connected =
      mosquitto_connect(m_client, settings.host.c_str(), settings.port, keepalive_seconds);
  if (connected != MOSQ_ERR_SUCCESS) {
    const std::string why = error_text(connected);
    mosquitto_destroy(m_client);
    m_client = nullptr;
    throw TransportError("cannot reach the MQTT broker at " + broker + ": " + why +
                         " (is a broker running there? --local-pair with a bare --mqtt starts "
                         "one of its own)");
  }
  const auto deadline = Clock::now() + settings.connect_within;
  try {
    wait_for([this] { return m_connect_result >= 0; }, deadline, "accept the connection");
    if (m_connect_result != 0)
      throw TransportError("the MQTT broker at " + broker + " refused the connection: " +
                           mosquitto_connack_string(m_connect_result));
    int rc = mosquitto_subscribe(m_client, nullptr, m_subscribe_topic.c_str(), settings.qos);
    if (rc == MOSQ_ERR_SUCCESS)
      rc = mosquitto_subscribe(m_client, nullptr, version_topic, 0);
    if (rc != MOSQ_ERR_SUCCESS)
      throw TransportError("cannot subscribe to " + m_subscribe_topic + " at the MQTT broker at " +
                           broker + ": " + error_text(rc));
    wait_for([this] { return m_subscriptions_acknowledged >= 2; }, deadline,
             "acknowledge the subscriptions");
    // The broker sends its retained version right after the acknowledgement, if it has one.
    const auto version_deadline = std::min(deadline, Clock::now() + version_within);
    while (m_broker_version.empty() && Clock::now() < version_deadline && service(1ms) != -1) {
    }
    if (m_failed)
      throw TransportError(m_failure);
  } catch (...) {
    mosquitto_destroy(m_client);
    m_client = nullptr;
    throw;
  }
  mosquitto_unsubscribe(m_client, nullptr, version_topic);
  write_pending();

  int major = 0;
  int minor = 0;
  int revision = 0;
  mosquitto_lib_version(&major, &minor, &revision);
  m_notes.push_back("broker: " +
                    (m_broker_version.empty()
                         ? std::string("version not published (no retained ") + version_topic + ")"
                         : m_broker_version + " (" + version_topic + ")") +
                    " at " + broker);
  m_notes.push_back("libmosquitto " + std::to_string(major) + "." + std::to_string(minor) + "." +
                    std::to_string(revision) + ", MQTT 3.1.1, client id " + m_client_id);
  m_notes.push_back("publishes to " + m_publish_topic + ", subscribed to " + m_subscribe_topic +
                    ", QoS " + std::to_string(settings.qos) +
                    (settings.qos > 0 ? ", at most " + std::to_string(settings.window) +
                                            " messages unacknowledged before send() pushes back"
                                      : std::string()));
  m_notes.push_back(
      "no network thread: netprof's own thread drives libmosquitto's loop (ppoll on the socket, "
      "mosquitto_loop_read, whose on_message hands each message to netprof in place), so no "
      "message crosses a thread; an echo published from on_message is written when the read "
      "returns, and every message crosses two TCP connections (to the broker and from it)");
}

MqttEndpoint::~MqttEndpoint()
{
  if (m_client == nullptr)
    return;
  if (!m_failed) {
    mosquitto_disconnect(m_client);
    mosquitto_loop_write(m_client, 1);
  }
  mosquitto_destroy(m_client);
}

template <typename Done>
void MqttEndpoint::wait_for(Done done, Clock::time_point deadline, const char* what)
{
  while (!done()) {
    if (m_failed)
      throw TransportError(m_failure);
    const auto now = Clock::now();
    if (now >= deadline)
      throw TransportError("the MQTT broker at " + m_settings.host + ":" +
                           std::to_string(m_settings.port) + " did not " + what + " within " +
                           std::to_string(m_settings.connect_within.count()) + " ms");
    service(std::min<Nanoseconds>(deadline - now, 100ms));
  }
}

void MqttEndpoint::on_connect(int result) noexcept
{
  m_connect_result = result;
}

void MqttEndpoint::on_subscribe() noexcept
{
  ++m_subscriptions_acknowledged;
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
  const std::string_view name(topic);
  if (!name.starts_with(m_echo_prefix))
    return {};
  const std::string_view id = name.substr(m_echo_prefix.size());
  for (std::size_t i = 0; i < m_senders.size(); ++i)
    if (m_senders[i] == id)
      return PeerHandle{i + 1};
  if (m_senders.size() >= most_senders)
    return {};
  try {
    m_senders.emplace_back(id); // once per subscriber, when its hello arrives
  } catch (...) {
    return {};
  }
  return PeerHandle{m_senders.size()};
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
            : "the MQTT connection to the broker at " + broker + " failed: " + error_text(rc);
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
    timespec limit{};
    limit.tv_sec = static_cast<time_t>(wait.count() / 1'000'000'000);
    limit.tv_nsec = static_cast<long>(wait.count() % 1'000'000'000);
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
  timespec limit{};
  limit.tv_sec = static_cast<time_t>(wait.count() / 1'000'000'000);
  limit.tv_nsec = static_cast<long>(wait.count() % 1'000'000'000);
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
