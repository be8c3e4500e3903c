#include "mqtt_endpoint.hpp"

#include "common/broker_client_id.hpp"
#include "common/socket_wait.hpp"

#include <netprof/errors.hpp>

#include <mosquitto.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

// The endpoint's setup and teardown: the client, its connection and subscriptions, and the
// notes that say what was set up. The per-message hooks are in mqtt_endpoint.cpp.

namespace netprof::mqtt_parts {

using namespace std::chrono_literals;

namespace {

constexpr int keepalive_seconds = 60;
constexpr auto version_within = std::chrono::milliseconds(300);
constexpr const char* version_topic = "$SYS/broker/version";

void init_library()
{
  static std::once_flag once;
  std::call_once(once, [] { mosquitto_lib_init(); });
}

MqttEndpoint& endpoint_of(void* object)
{
  return *static_cast<MqttEndpoint*>(object);
}

TransportError unreachable(const std::string& broker, const std::string& why)
{
  return TransportError("cannot reach the MQTT broker at " + broker + ": " + why +
                        " (is a broker running there? --local-pair with a bare --mqtt starts "
                        "one of its own)");
}

} // namespace

std::string mqtt_error_text(int rc)
{
  if (rc == MOSQ_ERR_ERRNO)
    return std::strerror(errno);
  return mosquitto_strerror(rc);
}

std::uint64_t window_messages(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept
{
  if (queue_length_bytes == 0)
    return 1000;
  const std::uint64_t messages = queue_length_bytes / std::max<std::size_t>(message_bytes, 1);
  return std::clamp<std::uint64_t>(messages, 16, 65535);
}

MqttEndpoint::MqttEndpoint(const EndpointSettings& settings) : m_settings(settings)
{
  init_library();
  m_client_id = transport_common::broker_client_id();
  m_data_topic = settings.prefix + "/data";
  m_echo_prefix = settings.prefix + "/echo/";
  const bool publisher = settings.role == Role::publisher;
  m_publish_topic = publisher ? m_data_topic : m_echo_prefix + m_client_id;
  m_subscribe_topic = publisher ? m_echo_prefix + "+" : m_data_topic;
  m_senders = transport_common::EchoSenders(m_echo_prefix);

  make_client();
  const std::string broker = settings.host + ":" + std::to_string(settings.port);
  connect_and_subscribe(broker);
  mosquitto_unsubscribe(m_client, nullptr, version_topic);
  write_pending();
  note_setup(broker);
}

void MqttEndpoint::make_client()
{
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
  if (m_settings.qos > 0)
    mosquitto_int_option(m_client, MOSQ_OPT_SEND_MAXIMUM,
                         static_cast<int>(std::min<std::uint64_t>(m_settings.window, 65535)));
}

void MqttEndpoint::connect_and_subscribe(const std::string& broker)
{
  const auto deadline = Clock::now() + m_settings.connect_within;
  // mosquitto_connect would block in connect(2) for TCP's own two minutes when the broker's host
  // drops packets: the asynchronous one returns at once, and the wait below keeps our deadline.
  const int started = mosquitto_connect_async(m_client, m_settings.host.c_str(), m_settings.port,
                                              keepalive_seconds);
  if (started != MOSQ_ERR_SUCCESS) {
    const std::string why = mqtt_error_text(started);
    mosquitto_destroy(m_client);
    m_client = nullptr;
    throw unreachable(broker, why);
  }
  try {
    await_tcp_connection(broker, deadline);
    wait_for([this] { return m_connect_result >= 0; }, deadline, "accept the connection");
    if (m_connect_result != 0)
      throw TransportError("the MQTT broker at " + broker + " refused the connection: " +
                           mosquitto_connack_string(m_connect_result));
    int rc = mosquitto_subscribe(m_client, nullptr, m_subscribe_topic.c_str(), m_settings.qos);
    if (rc == MOSQ_ERR_SUCCESS)
      rc = mosquitto_subscribe(m_client, nullptr, version_topic, 0);
    if (rc != MOSQ_ERR_SUCCESS)
      throw TransportError("cannot subscribe to " + m_subscribe_topic + " at the MQTT broker at " +
                           broker + ": " + mqtt_error_text(rc));
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
}

void MqttEndpoint::await_tcp_connection(const std::string& broker, Clock::time_point deadline)
{
  const int error = transport_common::await_connect(mosquitto_socket(m_client), deadline);
  if (error == ETIMEDOUT && Clock::now() >= deadline)
    throw TransportError("the MQTT broker at " + broker +
                         " did not accept the TCP connection within " +
                         std::to_string(m_settings.connect_within.count()) +
                         " ms (its host drops the packets, or is not there)");
  if (error != 0)
    throw unreachable(broker, std::strerror(error));
  // libmosquitto queued its CONNECT while the socket was still connecting.
  if (!write_pending())
    throw TransportError(m_failure);
}

void MqttEndpoint::note_setup(const std::string& broker)
{
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
                    ", QoS " + std::to_string(m_settings.qos) +
                    (m_settings.qos > 0 ? ", at most " + std::to_string(m_settings.window) +
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

} // namespace netprof::mqtt_parts
