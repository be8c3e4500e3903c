#include "cross_clock_headline.hpp"
#include "failed_wait.hpp"

#include <netprof/report.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

// MADARA network_profiler's layout (Test:, Settings:, Latency:, Throughput:, two-space
// "Label: value" lines) so its users find things where they expect them; the extensions are
// extra lines and blocks, never renamed ones.

namespace netprof {

namespace {

std::string seconds(double value)
{
  return format_number(value) + " s";
}

// One-way is half of a round trip; kept as a double so an odd RTT does not lose its half ns.
double half(std::int64_t ns)
{
  return static_cast<double>(ns) / 2.0;
}

std::string join(const std::vector<std::string>& items, const std::string& suffix)
{
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) {
      out += ", ";
    }
    out += item + suffix;
  }
  return out;
}

void write_list(std::ostream& out, const char* heading, const std::vector<std::string>& items)
{
  if (items.empty()) {
    return;
  }
  out << heading << "\n";
  for (const std::string& item : items) {
    out << "  - " << item << "\n";
  }
}

void write_status(std::ostream& out, const RunReport& report)
{
  if (report.interrupted) {
    out << "Test: INTERRUPTED (partial results)\n";
  } else if (report.success) {
    out << "Test: SUCCESS";
    if (!report.headline.empty())
      out << " (" << report.headline << ")";
    out << "\n";
  } else {
    out << "Test: FAIL\n";
  }
  write_list(out, "Problems:", report.problems);
  write_list(out, "Warnings:", report.warnings);
}

std::string buffer_line(const EndpointFacts& endpoint)
{
  std::string requested = endpoint.requested_buffer_bytes == 0
                              ? std::string("OS default")
                              : format_count(endpoint.requested_buffer_bytes) + " B";
  std::string granted;
  if (endpoint.granted_send_buffer_bytes == 0 && endpoint.granted_receive_buffer_bytes == 0) {
    granted = "not reported by the transport";
  } else {
    granted = "send " + format_count(endpoint.granted_send_buffer_bytes) + " B, receive " +
              format_count(endpoint.granted_receive_buffer_bytes) + " B";
  }
  return "requested " + requested + "; granted " + granted;
}

// Only what the user changed: most runs keep the default priority and drop nothing.
void write_priority_and_drops(std::ostream& out, const RunConfig& config)
{
  if (config.nice) {
    out << "  Nice: " << *config.nice << "\n";
  }
  if (config.rt_priority) {
    out << "  Real-time priority: SCHED_FIFO " << *config.rt_priority << "\n";
  }
  if (config.drop_percent > 0.0) {
    out << "  Injected drops: " << format_percent(config.drop_percent)
        << " of received data, dropped before counting (seed " << config.drop_seed << ")\n";
  }
}

// "reliable, keep-all of 1,000 messages (set by the publisher; asked: none): <what it means>".
std::string qos_line(const EffectiveQos& qos)
{
  std::string line =
      std::string(to_string(qos.reliability)) + ", history " + to_string(qos.history);
  if (qos.depth)
    line += " of " + format_count(*qos.depth) + " messages";
  line += std::string(" (set by ") + (qos.set_by == QosSetBy::every_process ? "" : "the ") +
          to_string(qos.set_by) + "; asked: " + to_string(qos.requested) + ")";
  if (!qos.meaning.empty())
    line += ": " + qos.meaning;
  return line;
}

void write_settings(std::ostream& out, const RunReport& report)
{
  const RunConfig& config = report.config;
  const EndpointFacts& endpoint = report.endpoint;
  const HostFacts& host = report.host;

  out << "Settings:\n";
  out << "  Transport type: " << config.transport_name << "\n";
  out << "  Role: " << to_string(config.role) << " id " << config.id << "\n";
  if (config.mode == Mode::stream) {
    out << "  Mode: stream with probes at " << format_number(config.probe_hz) << " Hz\n";
  } else {
    out << "  Mode: ping-pong (one probe in flight, timeout "
        << seconds(config.probe_timeout_seconds) << ")\n";
  }
  out << "  QoS: " << qos_line(endpoint.qos) << "\n";
  out << "  Buffer size: " << buffer_line(endpoint) << "\n";
  for (const std::string& note : endpoint.notes) {
    out << "    note: " << note << "\n";
  }
  std::string hosts = join(endpoint.local_addresses, " (bound)");
  std::string peers = join(endpoint.peer_addresses, " (peer)");
  if (!hosts.empty() && !peers.empty()) {
    hosts += ", ";
  }
  hosts += peers;
  out << "  Hosts: " << (hosts.empty() ? std::string("none reported") : hosts) << "\n";
  if (config.pair_layout != PairLayout::none) {
    out << "  Local pair: "
        << (config.pair_layout == PairLayout::threads ? "threads of one process" : "two processes")
        << "\n";
  }
  if (endpoint.discovery_seconds) {
    out << "  Discovery: " << format_number(*endpoint.discovery_seconds * 1e3)
        << " ms from opening until its DDS readers and writers were matched\n";
  }
  if (endpoint.max_message_size > 0) {
    out << "  Max message size: " << format_count(endpoint.max_message_size) << " B\n";
  }
  out << "  Machine: " << (host.hostname.empty() ? std::string("unknown") : host.hostname);
  if (!host.kernel.empty()) {
    out << ", " << host.kernel;
  }
  out << ", " << (host.cpu_model.empty() ? std::string("unknown CPU") : host.cpu_model) << ", "
      << host.cores << " cores";
  if (!host.clock_source.empty()) {
    out << ", clock source " << host.clock_source;
  }
  if (!host.cpu_governor.empty()) {
    out << ", governor " << host.cpu_governor;
  }
  out << "\n";
  out << "  Data size: " << format_count(config.payload_size) << " B\n";
  out << "  Num vars: " << config.num_vars << "\n";
  if (config.count) {
    out << "  Count: " << format_count(*config.count) << " messages\n";
  } else {
    out << "  Test time: " << seconds(config.test_seconds) << "\n";
  }
  if (config.send_hz > 0.0) {
    out << "  Send rate: " << format_number(config.send_hz) << " Hz";
    // The pace is the publisher's own: a subscriber's settings come from the run description,
    // which does not carry it.
    if (config.role == Role::publisher)
      out << " (--pace " << to_string(config.pace) << ")";
    out << "\n";
  } else {
    out << "  Send rate: as fast as possible\n";
  }
  if (config.warmup_count) {
    out << "  Warm-up: " << format_count(*config.warmup_count) << " messages\n";
  } else if (config.warmup_seconds > 0.0) {
    out << "  Warm-up: " << seconds(config.warmup_seconds) << "\n";
  } else {
    out << "  Warm-up: none\n";
  }
  out << "  Wait strategy: " << to_string(config.wait_strategy) << "\n";
  std::string cpus;
  for (int cpu : config.cpus) {
    cpus += (cpus.empty() ? "" : ", ") + std::to_string(cpu);
  }
  out << "  CPU pinning: " << (cpus.empty() ? std::string("none") : cpus) << "\n";
  write_priority_and_drops(out, config);
  out << "  Run id: " << format_run_id(report.run_id) << "\n";
}

// `scale` turns a round trip into what the block shows: 1 for RTT, 0.5 for one-way. A `note`
// goes under the heading, before the figures.
void write_latency_block(std::ostream& out, const char* heading, const LatencySummary& rtt,
                         double scale, const char* note = nullptr)
{
  auto line = [&](const char* label, double ns) {
    out << "    " << label << ": " << format_duration_ns(ns * scale) << "\n";
  };
  out << "  " << heading << "\n";
  if (note)
    out << "    " << note << "\n";
  line("Min", static_cast<double>(rtt.min_ns));
  line("Avg", rtt.mean_ns);
  line("Max", static_cast<double>(rtt.max_ns));
  line("Stddev", rtt.stddev_ns);
  line("p50", static_cast<double>(rtt.p50_ns));
  line("p90", static_cast<double>(rtt.p90_ns));
  line("p99", static_cast<double>(rtt.p99_ns));
  line("p99.9", static_cast<double>(rtt.p999_ns));
  line("p99.99", static_cast<double>(rtt.p9999_ns));
}

// A few lines of bars for users who stay in the terminal: one per log-scale bin, one-way.
void write_distribution(std::ostream& out, const std::vector<HistogramBin>& bins)
{
  constexpr std::size_t bar_width = 40;
  std::uint64_t largest = 0;
  std::uint64_t total = 0;
  for (const HistogramBin& bin : bins) {
    largest = std::max(largest, bin.count);
    total += bin.count;
  }
  if (largest == 0) {
    return;
  }
  out << "  One-way (RTT/2) distribution:\n";
  for (const HistogramBin& bin : bins) {
    std::string range =
        format_duration_ns(half(bin.low_ns)) + " - " + format_duration_ns(half(bin.high_ns));
    range.resize(std::max<std::size_t>(range.size(), 20), ' ');
    const auto filled = static_cast<std::size_t>(
        std::llround(static_cast<double>(bin.count) * bar_width / static_cast<double>(largest)));
    out << "    " << range << " |" << std::string(filled, '#')
        << std::string(bar_width - filled, ' ') << "| " << format_count(bin.count) << " ("
        << format_percent(100.0 * static_cast<double>(bin.count) / static_cast<double>(total))
        << ")\n";
  }
}

void write_direction(std::ostream& out, const char* label, const LatencySummary& latency,
                     const std::string& bound, const char* indent = "      ")
{
  out << indent << label << ": ";
  if (latency.count == 0) {
    out << "no measured exchange\n";
    return;
  }
  out << "p50 " << format_duration_ns(static_cast<double>(latency.p50_ns)) << ", p99 "
      << format_duration_ns(static_cast<double>(latency.p99_ns)) << ", min "
      << format_duration_ns(static_cast<double>(latency.min_ns)) << ", max "
      << format_duration_ns(static_cast<double>(latency.max_ns)) << " (each " << bound << ")\n";
}

// What came back per probe, measured: a round trip's figures hold the way back at this size.
void write_echo_size(std::ostream& out, const RunReport& report)
{
  out << "  Echo: " << to_string(report.config.echo);
  if (report.echoes_received > 0)
    out << ", " << format_count(report.echo_bytes / report.echoes_received) << " B per echo";
  out << (report.config.echo == EchoSize::full ? " (as large as a probe, as sockperf echoes)"
                                               : " (header and stamps only; --echo full sends "
                                                 "a probe's size back)")
      << "\n";
}

// Whether the transport lent the memory messages were written into, and so what the figures
// hold of writing the payload (--payload-fill).
void write_payload_fill(std::ostream& out, const RunReport& report)
{
  out << "  Payload fill: " << to_string(report.config.payload_fill)
      << ", lent: " << (report.transport_lent ? "yes" : "no");
  if (!report.transport_lent)
    out << " (the transport copies one buffer the core filled once)\n";
  else if (report.config.payload_fill == PayloadFill::once)
    out << " (payload written into " << format_count(report.payload_writes)
        << " of the measured loans, the others held it already and got only a header, as "
           "iceperf; --payload-fill every-message measures the copy)\n";
  else
    out << " (payload written into every loan: the figures include that copy)\n";
}

void write_publisher_latency(std::ostream& out, const RunReport& report)
{
  const CrossClockLatency* across = leading_cross_clock(report);
  out << (across ? "Latency: one-way across clocks (offset estimated from the probes), then the "
                   "round trip on the publisher's clock\n"
                 : "Latency: round trip on the publisher's clock; one-way = RTT/2\n");
  out << "  Probes sent: " << format_count(report.probes_sent) << "\n";
  // Every subscriber echoes every probe, so echoes can outnumber probes.
  out << "  Echoes received: " << format_count(report.echoes_received);
  if (report.subscribers.size() > 1) {
    out << " (from " << report.subscribers.size() << " subscribers)";
  }
  out << "\n";
  out << "  Late echoes: " << format_count(report.echoes_late);
  if (report.echoes_late > 0)
    out << " (among the echoes received)";
  out << "\n";
  write_echo_size(out, report);
  write_payload_fill(out, report);
  if (report.rtt.count == 0) {
    out << "  no probes echoed\n";
    return;
  }
  if (across) {
    const std::string bound = "± " + format_duration_ns(static_cast<double>(across->bound_ns));
    write_latency_block(out, "One-way, publisher -> subscriber (across clocks):", across->forward,
                        1.0, ("each " + bound + ", the clock offset's error bound").c_str());
    write_direction(out, "One-way, subscriber -> publisher", across->backward, bound, "  ");
  }
  write_latency_block(
      out, across ? "One-way (RTT/2), half the round trip, both directions:" : "One-way (RTT/2):",
      report.rtt, 0.5);
  write_latency_block(out, "Round trip (RTT):", report.rtt, 1.0);
  if (report.config.print_histogram) {
    write_distribution(out, report.rtt_bins);
  }
  if (report.config.send_hz > 0.0 && report.rtt_uncorrected.count > 0) {
    const LatencySummary& raw = report.rtt_uncorrected;
    out << "  Uncorrected RTT (from actual send time): p50 "
        << format_duration_ns(static_cast<double>(raw.p50_ns)) << ", p99 "
        << format_duration_ns(static_cast<double>(raw.p99_ns)) << ", max "
        << format_duration_ns(static_cast<double>(raw.max_ns)) << "\n";
    // One line, so the reader sees why two RTTs exist without leaving the report.
    out << "    (the RTT above starts when each probe was due, so sender stalls count: no "
           "coordinated omission)\n";
  }
  if (report.config.send_hz > 0.0 && report.pacer_lateness.count > 0) {
    const LatencySummary& late = report.pacer_lateness;
    out << "  Pacer lateness (actual send minus due time, " << format_count(late.count)
        << " messages, --pace " << to_string(report.config.pace) << "): p50 "
        << format_duration_ns(static_cast<double>(late.p50_ns)) << ", p99 "
        << format_duration_ns(static_cast<double>(late.p99_ns)) << ", max "
        << format_duration_ns(static_cast<double>(late.max_ns)) << "\n";
  }
  if (report.fanout_skew.count > 0) {
    const LatencySummary& skew = report.fanout_skew;
    out << "  Fan-out skew (first to last subscriber's echo of one probe, "
        << format_count(skew.count) << " probes): p50 "
        << format_duration_ns(static_cast<double>(skew.p50_ns)) << ", p99 "
        << format_duration_ns(static_cast<double>(skew.p99_ns)) << ", max "
        << format_duration_ns(static_cast<double>(skew.max_ns)) << "\n";
  }
}

// The counters block shared by the publisher's per-subscriber view and a subscriber's own
// report. `lost_known` is false on a subscriber that never saw END: it cannot know what was sent.
// `datagrams`: the transport sends datagrams (EndpointFacts::sends_datagrams); elsewhere the
// count is one per message and says nothing, unless it differs.
void write_counters(std::ostream& out, const std::string& indent, const SubscriberResult& result,
                    std::uint32_t num_vars, bool lost_known, bool datagrams)
{
  const wire::SubscriberCounters& c = result.counters;
  const Throughput& t = result.throughput;
  out << indent << "Messages received: " << format_count(c.received) << "\n";
  out << indent << "Message rate: " << format_rate(t.messages_per_second, "msg") << "\n";
  if (datagrams || c.datagrams != c.received)
    out << indent << "Datagrams: " << format_count(c.datagrams) << " ("
        << format_rate(t.datagrams_per_second, "datagrams") << ")\n";
  out << indent << "Data received: " << format_byte_total(c.payload_bytes) << "\n";
  out << indent << "Data rate: " << format_rate(t.payload_bytes_per_second, "B") << "\n";
  out << indent << "Wire data: " << format_byte_total(c.wire_bytes) << " at "
      << format_rate(t.wire_bytes_per_second, "B") << "\n";
  out << indent << "Measured time: " << format_duration_ns(t.seconds * 1e9)
      << " (subscriber clock, first to last message)\n";
  if (lost_known) {
    out << indent << "Lost: " << format_count(result.lost) << " ("
        << format_percent(loss_percent(result)) << ")";
    if (result.injected_drops > 0) {
      out << ", " << format_count(result.injected_drops)
          << " of them dropped on purpose (--drop-rate)";
    }
    out << "\n";
  } else {
    out << indent << "Lost: unknown (no end of test received)\n";
  }
  out << indent << "Gaps: " << format_count(c.gaps) << "\n";
  out << indent << "Duplicates: " << format_count(c.duplicates) << "\n";
  out << indent << "Out of order: " << format_count(c.out_of_order) << "\n";
  if (num_vars > 0) {
    out << indent << "Records decoded: " << format_count(c.records_decoded) << "\n";
  }
}

// Every call to the transport is an attempt: sent + pushed back + failed add up to it. A
// pushed-back message is retried, so one message may cost several attempts; the causes are
// listed only when something was refused.
void write_send_accounting(std::ostream& out, const SendAccounting& accounting)
{
  out << "  Send attempts: " << format_count(accounting.attempted) << " ("
      << format_count(accounting.sent) << " sent, " << format_count(accounting.pushed_back)
      << " pushed back, " << format_count(accounting.failed) << " failed)";
  if (accounting.refused() > 0) {
    const char* separator = ": ";
    for (std::size_t i = 0; i < SendAccounting::cause_count; ++i) {
      if (accounting.by_cause[i] == 0)
        continue;
      out << separator << to_string(static_cast<SendCause>(i)) << " "
          << format_count(accounting.by_cause[i]);
      separator = ", ";
    }
  }
  out << "\n";
}

// Forward and backward apart, which RTT/2 cannot tell: only as good as the offset estimate,
// whose bound every figure carries.
void write_cross_clock(std::ostream& out, const CrossClockLatency& latency)
{
  const std::string bound = "± " + format_duration_ns(static_cast<double>(latency.bound_ns));
  out << "    One-way across clocks, offset estimated from the " << latency.exchanges_used
      << " exchanges with the smallest round trip (of " << format_count(latency.exchanges)
      << "):\n";
  out << "      Clock offset (subscriber - publisher): "
      << format_duration_ns(static_cast<double>(latency.offset_ns)) << " " << bound << "\n";
  write_direction(out, "Forward (publisher -> subscriber)", latency.forward, bound);
  write_direction(out, "Backward (subscriber -> publisher)", latency.backward, bound);
  if (latency.out_of_range > 0)
    out << "      " << format_count(latency.out_of_range)
        << " exchanges left out: the offset moved by more than the histograms hold\n";
}

void write_publisher_throughput(std::ostream& out, const RunReport& report)
{
  out << "Throughput:\n";
  out << "  Messages sent: " << format_count(report.messages_sent) << "\n";
  write_send_accounting(out, report.send_accounting);
  out << "  Measured time: " << format_duration_ns(report.measured_seconds * 1e9)
      << " (publisher clock)\n";
  if (report.subscribers.empty()) {
    out << "  No subscriber reported.\n";
  }
  for (const SubscriberResult& sub : report.subscribers) {
    out << "  Subscriber " << sub.id << ":";
    if (sub.joined_late && sub.joined_at_sequence > 0) {
      out << " (joined late, at message " << format_count(sub.joined_at_sequence) << ": the "
          << format_count(sub.joined_at_sequence) << " sent before are not lost)";
    } else if (sub.joined_late) {
      out << " (joined late)";
    }
    switch (sub.outcome) {
    case SubscriberOutcome::left_early:
      out << " (left early: counters up to its departure)";
      break;
    case SubscriberOutcome::vanished:
      out << " (vanished: no final counters)";
      break;
    case SubscriberOutcome::restarted:
      out << " (restarted " << seconds(sub.restarted_seconds)
          << " into the measured phase: figures from the new process only, not the whole run)";
      break;
    case SubscriberOutcome::complete:
      break;
    }
    if (sub.restarts > 0 && sub.outcome != SubscriberOutcome::restarted) {
      out << " (restarted " << sub.restarts << (sub.restarts == 1 ? " time" : " times") << ")";
    }
    out << "\n";
    if (!sub.counters_received && sub.last_heard_seconds >= 0) {
      out << "    Last heard: " << format_duration_ns(sub.last_heard_seconds * 1e9)
          << " into the measured phase\n";
    }
    if (sub.counters_received) {
      write_counters(out, "    ", sub, report.config.num_vars, true,
                     report.endpoint.sends_datagrams);
    }
    out << "    Probes echoed: " << format_count(sub.echoes) << " of "
        << format_count(sub.probes_sent) << "\n";
    if (sub.rtt.count > 0) {
      out << "    One-way (RTT/2): p50 " << format_duration_ns(half(sub.rtt.p50_ns)) << ", p99 "
          << format_duration_ns(half(sub.rtt.p99_ns)) << "\n";
    } else {
      out << "    One-way (RTT/2): no probes echoed\n";
    }
    if (sub.cross_clock)
      write_cross_clock(out, *sub.cross_clock);
  }
}

std::string ending_text(const RunReport& report)
{
  switch (report.ended_by) {
  case RunEnding::end:
    return report.end_received ? "the publisher's end of test" : "end";
  case RunEnding::publisher_silent:
    return "the publisher going silent for --idle-timeout " +
           seconds(report.config.idle_timeout_seconds) + " (partial figures)";
  case RunEnding::no_publisher:
    return "no publisher within --wait " + seconds(report.config.wait_seconds);
  case RunEnding::publisher_restarted:
    return "the publisher restarting (new run detected)";
  case RunEnding::interrupted:
    return "an interrupt (partial figures)";
  case RunEnding::transport_failed:
    break;
  }
  return "a transport failure";
}

// MADARA's one-way figure. Exact when both processes read one host's CLOCK_MONOTONIC,
// meaningless across hosts, and the subscriber cannot tell which it is: the label says so.
void write_subscriber_one_way(std::ostream& out, const RunReport& report)
{
  if (!report.self || report.self->one_way.count == 0)
    return;
  write_latency_block(out, "One-way (this subscriber's receive time - the publisher's send stamp):",
                      report.self->one_way, 1.0,
                      "valid only when publisher and subscriber share a host's clock; not "
                      "comparable across hosts");
}

void write_subscriber_throughput(std::ostream& out, const RunReport& report)
{
  out << "Throughput:\n";
  if (report.self) {
    write_counters(out, "  ", *report.self, report.config.num_vars, report.end_received,
                   report.endpoint.sends_datagrams);
    out << "  Probes echoed: " << format_count(report.self->counters.probes_echoed) << "\n";
  } else {
    out << "  No counters.\n";
  }
  out << "  End of test received: " << (report.end_received ? "yes" : "no") << "\n";
  out << "  Run ended by: " << ending_text(report) << "\n";
}

// Runs a subscriber took part in until their publisher was replaced: partial, loss unknown.
void write_abandoned_runs(std::ostream& out, const RunReport& report)
{
  if (report.abandoned_runs.empty()) {
    return;
  }
  out << "Earlier runs (abandoned when the publisher restarted; partial figures):\n";
  for (const AbandonedRun& run : report.abandoned_runs) {
    out << "  Run " << format_run_id(run.run_id) << ": new run detected, no end of test\n";
    write_counters(out, "    ", run.figures, report.config.num_vars, false,
                   report.endpoint.sends_datagrams);
    out << "    Probes echoed: " << format_count(run.figures.counters.probes_echoed) << "\n";
  }
}

std::string usage_text(const std::optional<wire::ProcessUsage>& usage)
{
  if (!usage) {
    return "not reported";
  }
  return "CPU " + format_duration_ns(static_cast<double>(usage->user_cpu_ns)) + " user + " +
         format_duration_ns(static_cast<double>(usage->system_cpu_ns)) + " system, peak RSS " +
         format_bytes(static_cast<double>(usage->peak_rss_bytes));
}

void write_resources(std::ostream& out, const RunReport& report)
{
  out << "Resources:\n";
  // A role of --local-pair --threads measured its own thread: the process is both roles'.
  out << (report.config.pair_layout == PairLayout::threads ? "  This thread: " : "  This process: ")
      << usage_text(report.usage) << "\n";
  for (const SubscriberResult& sub : report.subscribers) {
    out << "  Subscriber " << sub.id << ": " << usage_text(sub.usage) << "\n";
  }
  out << "  Steal time: "
      << (report.steal_percent ? format_percent(*report.steal_percent) : std::string("unknown"))
      << " of the host's CPU time during the run\n";
  if (report.scheduler) {
    const SchedulerLoad& load = *report.scheduler;
    out << "  Scheduler: " << format_count(load.involuntary_switches)
        << " involuntary context switches, "
        << format_duration_ns(load.run_queue_wait_seconds * 1e9) << " waiting for a CPU, "
        << load.runnable_threads << " runnable threads on " << load.online_cores
        << " CPUs at the end (this role may use " << load.cores_given << ")\n";
  }
}

} // namespace

void write_text_report(std::ostream& out, const RunReport& report)
{
  write_status(out, report);
  if (nothing_measured(report)) {
    write_failed_wait(out, report);
    return;
  }
  write_settings(out, report);
  if (report.config.role == Role::publisher) {
    write_publisher_latency(out, report);
    write_publisher_throughput(out, report);
  } else {
    out << "Latency:\n";
    out << "  Latency is measured on the publisher (round trip); see its report.\n";
    write_subscriber_one_way(out, report);
    write_subscriber_throughput(out, report);
    write_abandoned_runs(out, report);
  }
  write_resources(out, report);
  if (report.rejected > 0) {
    out << "Rejected messages: " << format_count(report.rejected);
    if (report.foreign_run_messages > 0)
      out << " (" << format_count(report.foreign_run_messages) << " of another run)";
    out << "\n";
  }
}

} // namespace netprof
