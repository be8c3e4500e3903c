#pragma once

#include "common/echo_senders.hpp"

#include <netprof/transport.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct mosquitto;
struct mosquitto_message;

namespace netprof::mqtt_parts {

// What the transport derived from the command line for one endpoint.
struct EndpointSettings {
  Role role = Role::publisher;
  std::string host = "127.0.0.1"; // the broker
  std::uint16_t port = 1883;
  std::string prefix = "netprof"; // topics: PREFIX/data, PREFIX/echo/CLIENT-ID
  int qos = 0;                    // MQTT QoS 0, 1 or 2, for what it publishes and subscribes
  std::uint64_t window = 0;       // QoS 1 and 2: unacknowledged messages before send() pushes back
  std::size_t requested_buffer_bytes = 0; // -q as given
  std::chrono::milliseconds connect_within{5000};
};

// The window of unacknowledged messages from -q: -q bytes' worth of messages of this size, at
// least 16 and at most 65,535 (MQTT's packet identifiers); 1,000 when -q is 0.
std::uint64_t window_messages(std::size_t queue_length_bytes, std::size_t message_bytes) noexcept;

// libmosquitto's error `rc` in words (errno's for MOSQ_ERR_ERRNO).
std::string mqtt_error_text(int rc);

// Bytes one PUBLISH packet of `payload` bytes on `topic_length` takes on a connection.
std::size_t publish_packet_bytes(std::size_t topic_length, std::size_t payload, int qos) noexcept;

// One MQTT client of the broker, driven by the thread that calls the hooks: libmosquitto's
// network loop is never started (no mosquitto_loop_start), so nothing crosses a thread. receive()
// waits in ppoll on the client's socket and reads with mosquitto_loop_read, whose on_message
// callback hands each message to the sink on this thread; what a callback publishes (an echo)
// libmosquitto queues and receive() writes as soon as the read returns.
// Publisher: publishes to PREFIX/data, subscribes PREFIX/echo/+; a subscriber publishes to
// PREFIX/echo/ITS-CLIENT-ID and subscribes PREFIX/data. The broker reaches every subscriber, so
// nothing is adopted; the echo topic names the sender (PeerHandle).
class MqttEndpoint final : public Endpoint {
public:
  static constexpr std::size_t max_payload_size = std::size_t{16} << 20;
  // Packets read per receive() at most.
  static constexpr int receive_batch = 32;

  // Connects, subscribes and waits for the broker's answers, at most connect_within; throws
  // TransportError (broker absent, refused, or silent).
  explicit MqttEndpoint(const EndpointSettings& settings);
  ~MqttEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;

  // libmosquitto's callbacks (static trampolines in the .cpp).
  void on_connect(int result) noexcept;
  void on_subscribe() noexcept;
  void on_publish() noexcept;
  void on_message(const mosquitto_message& message) noexcept;

private:
  // Setup (mqtt_endpoint_setup.cpp): the client and its callbacks; the connection and both
  // subscriptions, the client destroyed if they fail; what the report's notes say of them.
  void make_client();
  void connect_and_subscribe(const std::string& broker);
  // Waits for the TCP connection libmosquitto started, then sends its CONNECT; throws
  // TransportError when it fails or the deadline passes.
  void await_tcp_connection(const std::string& broker, Clock::time_point deadline);
  void note_setup(const std::string& broker);
  // Waits up to `wait` for the socket to turn readable, then reads one packet: 1 when it read
  // one, 0 when nothing came, -1 when the connection failed (m_failure says why).
  int service(Nanoseconds wait) noexcept;
  bool write_pending() noexcept;
  // Writes what libmosquitto still holds while the socket takes it, at most `within`.
  void finish_writing(Nanoseconds within) noexcept;
  void fail(int rc) noexcept;
  PeerHandle sender_of(const char* topic) noexcept;
  // Setup: runs the loop until `done` or the deadline.
  template <typename Done> void wait_for(Done done, Clock::time_point deadline, const char* what);

  EndpointSettings m_settings;
  mosquitto* m_client = nullptr;
  std::string m_client_id;
  std::string m_publish_topic;
  std::string m_subscribe_topic;
  std::string m_data_topic;
  std::string m_echo_prefix; // PREFIX/echo/
  MessageSink* m_sink = nullptr;
  int m_delivered = 0;
  bool m_in_callback = false; // inside on_message: libmosquitto holds its locks
  std::uint64_t m_unacknowledged = 0;
  int m_connect_result = -1;
  int m_subscriptions_acknowledged = 0;
  bool m_failed = false;
  std::string m_failure;
  Clock::time_point m_next_misc{};
  std::string m_broker_version; // from $SYS/broker/version
  // Subscribers whose echoes arrived, by client id: a PeerHandle is the index + 1.
  transport_common::EchoSenders m_senders;
  std::vector<std::string> m_notes;
  std::vector<std::string> m_diagnoses;
};

} // namespace netprof::mqtt_parts
