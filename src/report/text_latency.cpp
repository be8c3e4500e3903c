#include "cross_clock_headline.hpp"
#include "text_sections.hpp"

#include <netprof/report.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace netprof::text_sections {

namespace {

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

// The subscriber's own time inside every round trip: one clock's stamps, so no bound.
void write_turnaround(std::ostream& out, const LatencySummary& turnaround, const char* indent)
{
  out << indent << "Subscriber's turnaround (its arrival stamp to its echo stamp, inside each "
      << "round trip): p50 " << format_duration_ns(static_cast<double>(turnaround.p50_ns))
      << ", p99 " << format_duration_ns(static_cast<double>(turnaround.p99_ns)) << ", max "
      << format_duration_ns(static_cast<double>(turnaround.max_ns)) << "\n";
}

// The one subscriber's turnaround, shown under the round trip it is part of.
const LatencySummary* leading_turnaround(const RunReport& report) noexcept
{
  if (report.subscribers.size() != 1 || !report.subscribers.front().cross_clock)
    return nullptr;
  const LatencySummary& turnaround = report.subscribers.front().cross_clock->turnaround;
  return turnaround.count > 0 ? &turnaround : nullptr;
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
  if (report.probes_relayed > 0)
    out << "  Probes relayed: " << format_count(report.probes_relayed) << " of "
        << format_count(report.probes_sent)
        << " sent on the transport's receive thread as the last echo arrived, as ddsperf's "
           "ping does in its listener (netprof's own thread stays asleep)\n";
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
  if (report.config.payload_type != PayloadType::bytes)
    out << "  Payload type: " << to_string(report.config.payload_type)
        << " (serialized as that sample type each way: docs/transport-dds.md)\n";
}

// What the publisher's own sending did to the figures: when it stalled, how late the pacer
// was, and how far apart its subscribers' echoes of one probe came.
void write_send_side_figures(std::ostream& out, const RunReport& report)
{
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

} // namespace

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
  if (const LatencySummary* turnaround = leading_turnaround(report))
    write_turnaround(out, *turnaround, "  ");
  if (report.config.print_histogram) {
    write_distribution(out, report.rtt_bins);
  }
  write_send_side_figures(out, report);
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
  if (latency.turnaround.count > 0)
    write_turnaround(out, latency.turnaround, "      ");
  if (latency.out_of_range > 0)
    out << "      " << format_count(latency.out_of_range)
        << " exchanges left out: the offset moved by more than the histograms hold\n";
}

} // namespace netprof::text_sections
