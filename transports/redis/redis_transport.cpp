#include "redis_transport.hpp"

#include "redis_endpoint.hpp"
#include "redis_server.hpp"

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

using redis_parts::EndpointSettings;

constexpr const char* default_prefix = "netprof";
constexpr std::size_t most_prefix_bytes = 1000;
// Redis's glob characters (PSUBSCRIBE patterns), and its escape.
constexpr const char* glob_characters = "*?[]\\";
// How long a local pair waits for the redis-server it starts to accept connections.
constexpr auto server_ready_within = std::chrono::milliseconds(10000);
const transport_common::ServerNaming server_naming{"--redis", "server", 6379};

const OptionGroup& redis_options()
{
  static const OptionGroup group{
      "Redis pub/sub (through a server)",
      {transport_common::naming_option(
           "redis", "HOST:PORT",
           "Redis pub/sub through the server at HOST:PORT: the publisher publishes to "
           "PREFIX:data, subscribers echo to PREFIX:echo:ID. --local-pair with --redis alone "
           "starts a redis-server of its own on a free 127.0.0.1 port and stops it at the end"),
       OptionSpec("redis-channel", "PREFIX", Text{},
                  "the channels' prefix (default netprof; --local-pair: a unique one per run); "
                  "no glob character * ? [ ] or \\. Give every process of a run the same. "
                  "Under --publishers and --topics stream k's is PREFIX.k")
           .passed(PairRoute::neither)
           .per_stream(StreamRule::name_suffix)}};
  return group;
}

struct RedisSettings {
  transport_common::ServerAddress server;
  std::optional<std::string> prefix; // none: not given
};

void check_prefix(const std::string& prefix)
{
  if (prefix.find_first_of(glob_characters) != std::string::npos)
    throw UsageError("bad --redis-channel value '" + prefix +
                     "': Redis's glob characters * ? [ ] and \\ cannot be in a channel prefix "
                     "(the publisher PSUBSCRIBEs to PREFIX:echo:*, and a pattern subscriber of "
                     "another run could take this run's channels for its own)");
  if (prefix.empty() || prefix.size() > most_prefix_bytes || prefix.find('\0') != std::string::npos)
    throw UsageError("bad --redis-channel value '" + prefix + "': expected 1 to " +
                     std::to_string(most_prefix_bytes) + " characters");
}

RedisSettings parse_settings(const OptionValues& values)
{
  RedisSettings settings;
  settings.server =
      transport_common::parse_server_address(values.text(redis_options()["redis"]), server_naming);
  if (const std::optional<std::string> prefix = values.text(redis_options()["redis-channel"])) {
    check_prefix(*prefix);
    settings.prefix = *prefix;
  }
  return settings;
}

// Redis pub/sub is at most once: the server acknowledges nothing to the publisher for a
// subscriber, keeps no message for a subscriber that is not connected, and disconnects one that
// lags too far rather than make the publisher wait. Best-effort and keep-last (with no depth:
// the bound is the server's, in bytes) are what it is; anything more is refused.
EffectiveQos effective_qos(const EndpointRequest& request)
{
  constexpr const char* why =
      "Redis pub/sub delivers at most once: nothing is acknowledged, no history is kept, and a "
      "subscriber that lags past the server's client-output-buffer-limit pubsub is disconnected "
      "rather than waited for (Redis Streams, not pub/sub, keep messages)";
  if (request.qos.reliability == Reliability::reliable)
    qos::refuse(qos::reliability_option(Reliability::reliable), "redis", why);
  if (request.qos.history &&
      (request.qos.history->kind == HistoryKind::keep_all || request.qos.history->depth))
    qos::refuse(qos::history_option(*request.qos.history), "redis", why);
  EffectiveQos effective;
  effective.reliability = Reliability::best_effort;
  effective.history = HistoryKind::keep_last;
  effective.set_by = QosSetBy::transport;
  effective.meaning =
      "Redis pub/sub (at most once): nothing is acknowledged and the publisher never waits for "
      "a subscriber; the server queues a lagging subscriber's messages in bytes and disconnects "
      "it past client-output-buffer-limit pubsub (Redis's default: 32 MB, or 8 MB for 60 s)";
  return effective;
}

std::unique_ptr<Endpoint> open_redis(const RedisSettings& settings, const EndpointRequest& request)
{
  EndpointSettings endpoint;
  endpoint.role = request.role;
  endpoint.host = *settings.server.host;
  endpoint.port = settings.server.port;
  endpoint.prefix = settings.prefix.value_or(default_prefix);
  endpoint.requested_buffer_bytes = request.queue_length_bytes;
  return std::make_unique<redis_parts::RedisEndpoint>(endpoint);
}

TransportPlan plan_redis(const PlanRequest& request)
{
  const RedisSettings settings = parse_settings(request.values);
  std::optional<std::uint16_t> own_server_port;
  TransportPlan plan = transport_common::plan_pair_or_single(
      request, [](const EndpointRequest& endpoint) { return effective_qos(endpoint); },
      [&] {
        // Each pair its own channels, should it share a server with another.
        const std::string prefix = settings.prefix.value_or(std::string(default_prefix) + ":" +
                                                            transport_common::unique_pair_name());
        return transport_common::server_pair_plan(server_naming, settings.server, "--redis-channel",
                                                  prefix, request.pair_subscribers,
                                                  own_server_port);
      },
      [&]() -> transport_common::SingleRolePlan {
        return {
            {transport_common::named_server(server_naming, settings.server)},
            [settings](const EndpointRequest& endpoint) { return open_redis(settings, endpoint); }};
      });
  if (own_server_port)
    plan.pair_service_starter = [port = *own_server_port] {
      return std::make_unique<transport_common::OwnedServer>(redis_parts::owned_server_kind(), port,
                                                             server_ready_within);
    };
  return plan;
}

} // namespace

TransportDescriptor redis_transport()
{
  return {.name = "redis",
          .summary = "Redis pub/sub through a server: --redis HOST:PORT",
          .options = redis_options(),
          .also_reads = {},
          // Two hiredis connections per endpoint, driven by the thread that calls the hooks.
          .flags = {.threads = true, .pair_service = true},
          // Across hosts every role goes through the hosts file's server (launch.py's broker =).
          .remote_launch = RemoteLaunch{{"--redis", "{broker}"}, {"--redis", "{broker}"}},
          .plan = plan_redis};
}

} // namespace netprof
