#pragma once

// The plain-text report's sections, one file each: text_settings.cpp (Settings:),
// text_latency.cpp (Latency:), text_throughput.cpp (Throughput: and a subscriber's earlier
// runs); text_report.cpp puts them in order with the status and resources.
// MADARA network_profiler's layout (Test:, Settings:, Latency:, Throughput:, two-space
// "Label: value" lines) so its users find things where they expect them; the extensions are
// extra lines and blocks, never renamed ones.

#include <netprof/report.hpp>

#include <cstdint>
#include <ostream>
#include <string>

namespace netprof::text_sections {

inline std::string seconds(double value)
{
  return format_number(value) + " s";
}

// One-way is half of a round trip; kept as a double so an odd RTT does not lose its half ns.
inline double half(std::int64_t ns)
{
  return static_cast<double>(ns) / 2.0;
}

void write_settings(std::ostream& out, const RunReport& report);

void write_publisher_latency(std::ostream& out, const RunReport& report);
// MADARA's one-way figure, of the subscriber's own clock against the publisher's send stamps.
void write_subscriber_one_way(std::ostream& out, const RunReport& report);
// One subscriber's one-way figures across clocks, forward and backward apart.
void write_cross_clock(std::ostream& out, const CrossClockLatency& latency);

void write_publisher_throughput(std::ostream& out, const RunReport& report);
void write_subscriber_throughput(std::ostream& out, const RunReport& report);
// Runs a subscriber took part in until their publisher was replaced: partial, loss unknown.
void write_abandoned_runs(std::ostream& out, const RunReport& report);
void write_per_publisher(std::ostream& out, const RunReport& report);
void write_per_topic(std::ostream& out, const RunReport& report);

} // namespace netprof::text_sections
