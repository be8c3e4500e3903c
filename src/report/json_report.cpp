#include "json_sections.hpp"

#include <netprof/report.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

// The key names here are a contract with the e2e tests, the sweep scripts and anyone's saved
// results: docs/json-schema.md lists them all. Renaming or removing one means bumping
// json_schema_version; adding one does not.

namespace netprof {

namespace {

using json_sections::finite;
using json_sections::usage_json;
using nlohmann::json;

// `halve` gives one-way figures (RTT/2) as doubles so odd round trips keep their half ns;
// round trips stay integers, as measured. count is a count either way.
json latency_json(const LatencySummary& rtt, bool halve)
{
  auto exact = [halve](std::int64_t ns) {
    return halve ? json(static_cast<double>(ns) / 2.0) : json(ns);
  };
  auto real = [halve](double ns) { return finite(halve ? ns / 2.0 : ns); };
  return json{
      {"count", rtt.count},
      {"min", exact(rtt.min_ns)},
      {"mean", real(rtt.mean_ns)},
      {"max", exact(rtt.max_ns)},
      {"stddev", real(rtt.stddev_ns)},
      {"p50", exact(rtt.p50_ns)},
      {"p90", exact(rtt.p90_ns)},
      {"p99", exact(rtt.p99_ns)},
      {"p99_9", exact(rtt.p999_ns)},
      {"p99_99", exact(rtt.p9999_ns)},
  };
}

json cross_clock_json(const std::optional<CrossClockLatency>& latency)
{
  if (!latency)
    return nullptr;
  return json{
      {"exchanges", latency->exchanges},
      {"exchanges_used", latency->exchanges_used},
      {"offset_ns", latency->offset_ns},
      {"bound_ns", latency->bound_ns},
      {"min_delay_ns", latency->min_delay_ns},
      {"forward_ns", latency_json(latency->forward, false)},
      {"backward_ns", latency_json(latency->backward, false)},
      {"turnaround_ns", latency_json(latency->turnaround, false)},
      {"out_of_range", latency->out_of_range},
  };
}

json result_json(const RunReport& report)
{
  const char* status = report.interrupted ? "INTERRUPTED" : report.success ? "SUCCESS" : "FAIL";
  return json{
      {"status", status},
      {"success", report.success},
      {"interrupted", report.interrupted},
      {"headline", report.headline},
      {"problems", report.problems},
      {"warnings", report.warnings},
  };
}

json bins_json(const std::vector<HistogramBin>& bins)
{
  json out = json::array();
  for (const HistogramBin& bin : bins) {
    out.push_back({{"low_ns", bin.low_ns}, {"high_ns", bin.high_ns}, {"count", bin.count}});
  }
  return out;
}

// Every cause is listed, 0 or not, so a reader never has to ask whether a key is missing.
json send_accounting_json(const SendAccounting& accounting)
{
  json by_cause = json::object();
  for (std::size_t i = 0; i < SendAccounting::cause_count; ++i)
    by_cause[to_string(static_cast<SendCause>(i))] = accounting.by_cause[i];
  return json{{"attempted", accounting.attempted},
              {"sent", accounting.sent},
              {"pushed_back", accounting.pushed_back},
              {"failed", accounting.failed},
              {"refused_by_cause", std::move(by_cause)}};
}

// --interval's intervals; each role gives the fields it measures (docs/json-schema.md).
json intervals_json(const std::vector<IntervalFigures>& intervals, Role role)
{
  json out = json::array();
  for (const IntervalFigures& interval : intervals) {
    json entry{{"start_seconds", finite(interval.start_seconds)},
               {"end_seconds", finite(interval.end_seconds)},
               {"messages", interval.messages},
               {"payload_bytes", interval.payload_bytes},
               {"latency_ns",
                {{"count", interval.latency_count},
                 {"p50", interval.latency_p50_ns},
                 {"p99", interval.latency_p99_ns}}}};
    if (role == Role::publisher) {
      entry["send_accounting"] = send_accounting_json(interval.sends);
      entry["echoes"] = interval.echoes;
    } else {
      entry["lost"] = interval.lost;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json subscriber_json(const SubscriberResult& sub)
{
  const wire::SubscriberCounters& c = sub.counters;
  const Throughput& t = sub.throughput;
  return json{
      {"id", sub.id},
      {"counters_received", sub.counters_received},
      {"joined_late", sub.joined_late},
      {"joined_at_sequence", sub.joined_at_sequence},
      {"sent_before_joining", sub.joined_at_sequence},
      {"left_early", sub.left_early},
      {"last_heard_seconds", finite(sub.last_heard_seconds)},
      {"received", c.received},
      {"unique", c.unique},
      {"lost", sub.lost},
      {"messages_owed", sub.messages_owed},
      {"injected_drops", sub.injected_drops},
      {"join_seconds", sub.join_seconds ? json(finite(*sub.join_seconds)) : json(nullptr)},
      {"loss_percent", finite(loss_percent(sub))},
      {"duplicates", c.duplicates},
      {"out_of_order", c.out_of_order},
      {"gaps", c.gaps},
      {"datagrams", c.datagrams},
      {"payload_bytes", c.payload_bytes},
      {"wire_bytes", c.wire_bytes},
      {"probes_sent", sub.probes_sent},
      {"echoes", sub.echoes},
      {"probes_echoed", c.probes_echoed},
      {"rejected", c.rejected},
      {"warmup_received", c.warmup_received},
      {"records_decoded", c.records_decoded},
      {"throughput",
       {
           {"seconds", finite(t.seconds)},
           {"messages_per_second", finite(t.messages_per_second)},
           {"datagrams_per_second", finite(t.datagrams_per_second)},
           {"payload_bytes_per_second", finite(t.payload_bytes_per_second)},
           {"wire_bytes_per_second", finite(t.wire_bytes_per_second)},
       }},
      {"latency",
       {
           {"rtt_ns", latency_json(sub.rtt, false)},
           {"one_way_ns", latency_json(sub.rtt, true)},
           {"cross_clock", cross_clock_json(sub.cross_clock)},
       }},
  };
}

// --fanout round-robin dealt by the transport: the run's loss in total; null otherwise.
json dealt_loss_json(const RunReport& report)
{
  if (!report.dealt_by_transport)
    return nullptr;
  const DealtLoss loss = dealt_loss(report.messages_sent, report.subscribers);
  return json{{"sent", loss.sent},
              {"received", loss.received},
              {"lost", loss.lost},
              {"loss_percent", finite(loss.percent())}};
}

// The publisher's figures, and those each subscriber sent it.
void add_publisher_figures(json& out, const RunReport& report)
{
  out["publisher"] = json{
      {"messages_sent", report.messages_sent},
      {"measured_seconds", finite(report.measured_seconds)},
      {"probes_sent", report.probes_sent},
      {"echoes_received", report.echoes_received},
      {"echoes_late", report.echoes_late},
      {"echo_bytes_per_echo", report.echoes_received > 0
                                  ? json(report.echo_bytes / report.echoes_received)
                                  : json(nullptr)},
      {"challenges_sent", report.challenges_sent},
      {"payload_fill", to_string(report.config.payload_fill)},
      {"transport_lent", report.transport_lent},
      {"payload_writes", report.payload_writes},
      {"probes_relayed", report.probes_relayed},
      {"dealt_by_transport", report.dealt_by_transport},
      {"dealt_loss", dealt_loss_json(report)},
      {"send_accounting", send_accounting_json(report.send_accounting)},
      {"latency",
       {
           {"rtt_ns", latency_json(report.rtt, false)},
           {"one_way_ns", latency_json(report.rtt, true)},
           {"rtt_uncorrected_ns", latency_json(report.rtt_uncorrected, false)},
           {"fanout_skew_ns", latency_json(report.fanout_skew, false)},
           {"rtt_histogram", bins_json(report.rtt_bins)},
       }},
      {"pacer_lateness_ns", latency_json(report.pacer_lateness, false)},
  };
  json subscribers = json::array();
  for (const SubscriberResult& sub : report.subscribers) {
    json entry = subscriber_json(sub);
    entry["outcome"] = to_string(sub.outcome);
    entry["restarts"] = sub.restarts;
    entry["restarted_seconds"] = finite(sub.restarted_seconds);
    entry["id_clash"] = sub.id_clash;
    entry["resources"] = usage_json(sub.usage);
    subscribers.push_back(std::move(entry));
  }
  out["subscribers"] = std::move(subscribers);
  json per_topic = json::array();
  for (const TopicStream& stream : report.per_topic) {
    json topic_subscribers = json::array();
    for (const SubscriberResult& sub : stream.subscribers)
      topic_subscribers.push_back(subscriber_json(sub));
    per_topic.push_back({{"topic", stream.topic},
                         {"address", stream.address},
                         {"success", stream.success},
                         {"messages_sent", stream.messages_sent},
                         {"probes_sent", stream.probes_sent},
                         {"echoes_received", stream.echoes_received},
                         {"latency", {{"rtt_ns", latency_json(stream.rtt, false)}}},
                         {"subscribers", std::move(topic_subscribers)}});
  }
  out["publisher"]["per_topic"] = std::move(per_topic);
}

// A subscriber's own figures, and those of runs it took part in until their publisher was
// replaced.
void add_subscriber_figures(json& out, const RunReport& report)
{
  if (report.self) {
    json self = subscriber_json(*report.self);
    self["latency"]["receive_minus_send_ns"] = latency_json(report.self->one_way, false);
    self["end_received"] = report.end_received;
    self["ended_by"] = to_string(report.ended_by);
    json per_publisher = json::array();
    for (const PublisherStream& stream : report.per_publisher) {
      json figures = subscriber_json(stream.figures);
      figures["publisher"] = stream.publisher;
      figures["topic"] = stream.topic;
      figures["address"] = stream.address;
      figures["end_received"] = stream.end_received;
      figures["ended_by"] = to_string(stream.ended_by);
      per_publisher.push_back(std::move(figures));
    }
    self["per_publisher"] = std::move(per_publisher);
    out["subscriber"] = std::move(self);
  } else {
    out["subscriber"] = nullptr;
  }
  json abandoned = json::array();
  for (const AbandonedRun& run : report.abandoned_runs) {
    json figures = subscriber_json(run.figures);
    figures["end_received"] = false;
    figures["ended_by"] = to_string(RunEnding::publisher_restarted);
    abandoned.push_back({{"run_id", format_run_id(run.run_id)}, {"subscriber", figures}});
  }
  out["abandoned_runs"] = std::move(abandoned);
}

} // namespace

nlohmann::json report_to_json(const RunReport& report)
{
  json out{
      {"schema_version", json_schema_version},
      {"tool",
       {
           {"name", "netprof"},
           {"version", report.version},
           {"build_type", report.build_type},
           {"commit", report.commit},
       }},
      {"command_line", report.config.command_line},
      {"host", json_sections::host_json(report.host)},
      {"settings", json_sections::settings_json(report.config)},
      {"endpoint", json_sections::endpoint_json(report.endpoint)},
      {"run_id", format_run_id(report.run_id)},
      {"result", result_json(report)},
      {"rejected", report.rejected},
      {"foreign_run_messages", report.foreign_run_messages},
      {"resources",
       {
           {"process", usage_json(report.usage)},
           {"steal_percent", report.steal_percent ? json(*report.steal_percent) : json(nullptr)},
           {"scheduler", json_sections::scheduler_json(report.scheduler)},
       }},
  };

  if (report.config.role == Role::publisher)
    add_publisher_figures(out, report);
  else
    add_subscriber_figures(out, report);
  if (report.config.interval_seconds)
    out["intervals"] = intervals_json(report.intervals, report.config.role);
  return out;
}

} // namespace netprof
