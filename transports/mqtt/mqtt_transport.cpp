#include "mqtt_transport.hpp"

#include "mqtt_broker.hpp"
#include "mqtt_endpoint.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/pair_names.hpp"
#include "common/server_address.hpp"

#include <netprof/errors.hpp>

#include <optional>
#include <string>
#include <vector>

namespace netprof {

namespace {

using mqtt_parts::EndpointSettings;

constexpr const char* default_prefix = "netprof";
constexpr std::size_t most_prefix_bytes = 1000;
// How long a local pair waits for the mosquitto it starts to accept connections.
constexpr auto broker_ready_within = std::chrono::milliseconds(10000);
const transport_common::ServerNaming broker_naming{"--mqtt", "broker", 1883};

const OptionGroup& mqtt_options()
{
  static const OptionGroup group{
      "MQTT (through a broker)",
      {transport_common::naming_option(
           "mqtt", "HOST:PORT",
           "MQTT through the broker at HOST:PORT (Mosquitto, or any MQTT 3.1.1 broker): "
           "the publisher publishes to PREFIX/data, subscribers echo to PREFIX/echo/ID. "
           "--local-pair with --mqtt alone starts a mosquitto of its own on a free "
           "127.0.0.1 port and stops it at the end"),
       OptionSpec("mqtt-topic", "PREFIX", Text{},
                  "the topics' prefix (default netprof; --local-pair: a unique one per run); "
                  "no MQTT wildcard + or #. Give every process of a run the same. Under "
                  "--publishers and --topics stream k's is PREFIX.k")
           .passed(PairRoute::neither)
           .per_stream(StreamRule::name_suffix),
       OptionSpec("mqtt-qos", "0|1|2", Choice{{"0", "1", "2"}},
                  "the MQTT QoS of everything published and subscribed: 0 at most once "
                  "(best-effort, the default), 1 at least once (reliable), 2 exactly once "
                  "(reliable); --reliability picks 0 or 1. Give every process the same")}};
  return group;
}

struct MqttSettings {
  transport_common::ServerAddress broker;
  std::optional<std::string> prefix; // none: not given
  std::optional<int> qos_given;      // --mqtt-qos
};

void check_prefix(const std::string& prefix)
{
  if (prefix.find_first_of("+#") != std::string::npos)
    throw UsageError("bad --mqtt-topic value '" + prefix +
                     "': MQTT's wildcards + and # cannot be in a topic netprof publishes to");
  if (prefix.empty() || prefix.size() > most_prefix_bytes ||
      prefix.find('\0') != std::string::npos || prefix.front() == '$')
    throw UsageError("bad --mqtt-topic value '" + prefix + "': expected 1 to " +
                     std::to_string(most_prefix_bytes) +
                     " characters, not starting with $ (the broker's own topics)");
}

MqttSettings parse_settings(const OptionValues& values)
{
  MqttSettings settings;
  settings.broker =
      transport_common::parse_server_address(values.text(mqtt_options()["mqtt"]), broker_naming);
  if (const std::optional<std::string> prefix = values.text(mqtt_options()["mqtt-topic"])) {
    check_prefix(*prefix);
    settings.prefix = *prefix;
  }
  if (const auto chosen = values.choice(mqtt_options()["mqtt-qos"]))
    settings.qos_given = static_cast<int>(*chosen);
  return settings;
}

// --mqtt-qos, or --reliability and --history mapped onto it: best-effort is QoS 0, reliable QoS 1
// (QoS 2 only by --mqtt-qos 2). keep-last:N has no meaning: the broker keeps no history for a
// connected subscriber, and the publisher's window is sized from -q.
int mqtt_qos(const MqttSettings& settings, const EndpointRequest& request)
{
  if (request.qos.history && request.qos.history->depth)
    qos::refuse(qos::history_option(*request.qos.history), "mqtt",
                "MQTT keeps no history of N messages for a connected subscriber; QoS 1 and 2 "
                "bound what is unacknowledged by -q (the report states the messages)");
  const std::optional<bool> reliable = qos::publisher_waits(request.qos, "mqtt");
  if (settings.qos_given) {
    const bool given_reliable = *settings.qos_given > 0;
    if (reliable && *reliable != given_reliable)
      throw UsageError(to_string(request.qos) + " contradicts --mqtt-qos " +
                       std::to_string(*settings.qos_given) +
                       ": QoS 0 is best-effort, 1 and 2 reliable; give one of them");
    return *settings.qos_given;
  }
  return reliable && *reliable ? 1 : 0;
}

std::uint64_t window_of(const EndpointRequest& request)
{
  return mqtt_parts::window_messages(request.queue_length_bytes, request.message_size_or_default());
}

EffectiveQos effective_qos(const MqttSettings& settings, const EndpointRequest& request)
{
  const int level = mqtt_qos(settings, request);
  EffectiveQos effective;
  effective.set_by = QosSetBy::every_process;
  if (level == 0) {
    effective.reliability = Reliability::best_effort;
    effective.history = HistoryKind::keep_last;
    effective.meaning = "MQTT QoS 0 (at most once): nothing is acknowledged and the publisher "
                        "never waits; a broker drops what a lagging subscriber's queue cannot "
                        "take (mosquitto: max_queued_messages, no limit on netprof's own broker)";
    return effective;
  }
  effective.reliability = Reliability::reliable;
  effective.history = HistoryKind::keep_all;
  effective.depth = window_of(request);
  effective.meaning =
      "MQTT QoS " + std::to_string(level) +
      (level == 1 ? " (at least once: PUBACK)" : " (exactly once: PUBREC, PUBREL, PUBCOMP)") +
      ": the publisher waits once the depth is unacknowledged by the broker; the broker queues "
      "for a lagging subscriber (netprof's own broker without limit, mosquitto's default "
      "max_queued_messages 1000 drops beyond)";
  return effective;
}

std::unique_ptr<Endpoint> open_mqtt(const MqttSettings& settings, const EndpointRequest& request)
{
  EndpointSettings endpoint;
  endpoint.role = request.role;
  endpoint.host = *settings.broker.host;
  endpoint.port = settings.broker.port;
  endpoint.prefix = settings.prefix.value_or(default_prefix);
  endpoint.qos = mqtt_qos(settings, request);
  endpoint.window = window_of(request);
  endpoint.requested_buffer_bytes = request.queue_length_bytes;
  return std::make_unique<mqtt_parts::MqttEndpoint>(endpoint);
}

TransportPlan plan_mqtt(const PlanRequest& request)
{
  const MqttSettings settings = parse_settings(request.values);
  std::optional<std::uint16_t> own_broker_port;
  TransportPlan plan = transport_common::plan_pair_or_single(
      request, [&](const EndpointRequest& endpoint) { return effective_qos(settings, endpoint); },
      [&] {
        // Each pair its own topics, should it share a broker with another.
        const std::string prefix = settings.prefix.value_or(std::string(default_prefix) + "/" +
                                                            transport_common::unique_pair_name());
        return transport_common::server_pair_plan(broker_naming, settings.broker, "--mqtt-topic",
                                                  prefix, request.pair_subscribers,
                                                  own_broker_port);
      },
      [&]() -> transport_common::SingleRolePlan {
        return {
            {transport_common::named_server(broker_naming, settings.broker)},
            [settings](const EndpointRequest& endpoint) { return open_mqtt(settings, endpoint); }};
      });
  if (own_broker_port)
    plan.pair_service_starter = [port = *own_broker_port] {
      return std::make_unique<transport_common::OwnedServer>(mqtt_parts::owned_broker_kind(), port,
                                                             broker_ready_within);
    };
  return plan;
}

} // namespace

TransportDescriptor mqtt_transport()
{
  return {.name = "mqtt",
          .summary = "MQTT through a broker (Mosquitto): --mqtt HOST:PORT",
          .options = mqtt_options(),
          .also_reads = {},
          // One libmosquitto client per endpoint, each driven by its own thread.
          .flags = {.threads = true, .pair_service = true},
          // Across hosts every role goes through the hosts file's broker (launch.py's broker =).
          .remote_launch = RemoteLaunch{{"--mqtt", "{broker}"}, {"--mqtt", "{broker}"}},
          .plan = plan_mqtt};
}

} // namespace netprof
