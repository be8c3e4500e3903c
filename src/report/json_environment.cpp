#include "json_sections.hpp"

// The key names here are a contract as much as json_report.cpp's (docs/json-schema.md).

namespace netprof::json_sections {

using nlohmann::json;

namespace {

// Null where the user asked nothing, so a script tells a default from a request.
json qos_json(const EffectiveQos& qos)
{
  const QosRequest& asked = qos.requested;
  return json{
      {"reliability", to_string(qos.reliability)},
      {"history", to_string(qos.history)},
      {"depth", qos.depth ? json(*qos.depth) : json(nullptr)},
      {"set_by", to_string(qos.set_by)},
      {"meaning", qos.meaning},
      {"requested",
       {
           {"reliability", asked.reliability ? json(to_string(*asked.reliability)) : json(nullptr)},
           {"history", asked.history ? json(to_string(*asked.history)) : json(nullptr)},
       }},
  };
}

} // namespace

json host_json(const HostFacts& host)
{
  return json{
      {"hostname", host.hostname},
      {"kernel", host.kernel},
      {"cpu_model", host.cpu_model},
      {"cores", host.cores},
      {"clock_source", host.clock_source},
      {"cpu_governor", host.cpu_governor},
      {"cpu_idle",
       {
           {"driver", host.cpu_idle_driver},
           {"guest_halt_poll_ns",
            host.guest_halt_poll_ns ? json(*host.guest_halt_poll_ns) : json(nullptr)},
       }},
      {"net_core",
       {
           {"rmem_default", host.rmem_default},
           {"rmem_max", host.rmem_max},
           {"wmem_default", host.wmem_default},
           {"wmem_max", host.wmem_max},
       }},
  };
}

json scheduler_json(const std::optional<SchedulerLoad>& load)
{
  if (!load) {
    return nullptr;
  }
  return json{
      {"seconds", finite(load->seconds)},
      {"involuntary_switches", load->involuntary_switches},
      {"run_queue_wait_seconds", finite(load->run_queue_wait_seconds)},
      {"runnable_threads", load->runnable_threads},
      {"cores_given", load->cores_given},
      {"online_cores", load->online_cores},
  };
}

// An optional setting: its value, or null when it was not given.
template <class T> json or_null(const std::optional<T>& value)
{
  return value ? json(*value) : json(nullptr);
}

json settings_json(const RunConfig& config)
{
  return json{
      {"role", to_string(config.role)},
      {"id", config.id},
      {"transport", config.transport_name},
      {"mode", to_string(config.mode)},
      {"payload_size", config.payload_size},
      {"num_vars", config.num_vars},
      {"payload_type", to_string(config.payload_type)},
      {"fanout", to_string(config.fanout)},
      {"publishers", config.publishers},
      {"topics", config.topics},
      {"test_seconds", finite(config.test_seconds)},
      {"count", or_null(config.count)},
      {"count_received", or_null(config.count_received)},
      {"send_hz", finite(config.send_hz)},
      {"probe_hz", finite(config.probe_hz)},
      {"probe_timeout_seconds", finite(config.probe_timeout_seconds)},
      {"warmup_seconds", finite(config.warmup_seconds)},
      {"warmup_count", or_null(config.warmup_count)},
      {"subscribers_expected", config.subscribers},
      {"wait_seconds", finite(config.wait_seconds)},
      {"idle_timeout_seconds", finite(config.idle_timeout_seconds)},
      {"wait_strategy", to_string(config.wait_strategy)},
      {"pace", to_string(config.pace)},
      {"echo", to_string(config.echo)},
      {"cpus", config.cpus},
      {"format", to_string(config.report_format)},
      {"queue_length", config.queue_length},
      {"max_loss_percent", config.max_loss_percent && std::isfinite(*config.max_loss_percent)
                               ? json(*config.max_loss_percent)
                               : json(nullptr)},
      {"local_pair", config.pair_layout != PairLayout::none ? json(to_string(config.pair_layout))
                                                            : json(nullptr)},
      {"nice", or_null(config.nice)},
      {"rt_priority", or_null(config.rt_priority)},
      {"drop_percent", finite(config.drop_percent)},
      {"drop_seed", config.drop_seed},
      {"interval_seconds",
       config.interval_seconds ? json(finite(*config.interval_seconds)) : json(nullptr)},
  };
}

json endpoint_json(const EndpointFacts& endpoint)
{
  json facts{
      {"transport", endpoint.transport},
      {"local_addresses", endpoint.local_addresses},
      {"peer_addresses", endpoint.peer_addresses},
      {"max_message_size", endpoint.max_message_size},
      {"buffer",
       {
           {"requested", endpoint.requested_buffer_bytes},
           {"granted_send", endpoint.granted_send_buffer_bytes},
           {"granted_receive", endpoint.granted_receive_buffer_bytes},
       }},
      {"capabilities",
       {
           {"addresses_peers_one_by_one", endpoint.capabilities.addresses_peers_one_by_one},
           {"shared_medium", endpoint.capabilities.shared_medium},
           {"lends_announced_payload", endpoint.capabilities.lends_announced_payload},
       }},
      {"qos", qos_json(endpoint.qos)},
      {"notes", endpoint.notes},
  };
  if (endpoint.discovery_seconds)
    facts["discovery_seconds"] = *endpoint.discovery_seconds;
  return facts;
}

json usage_json(const std::optional<wire::ProcessUsage>& usage)
{
  if (!usage) {
    return nullptr;
  }
  return json{
      {"cpu_user_seconds", static_cast<double>(usage->user_cpu_ns) / 1e9},
      {"cpu_system_seconds", static_cast<double>(usage->system_cpu_ns) / 1e9},
      {"peak_rss_bytes", usage->peak_rss_bytes},
  };
}

} // namespace netprof::json_sections
