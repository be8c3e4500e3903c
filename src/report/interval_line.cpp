#include <netprof/report.hpp>

#include <cstdio>
#include <string>
#include <string_view>

// --interval's line, one per interval, as iperf3 -i prints: when, how much, what was lost or
// pushed back, and the interval's latency. docs/reading-the-report.md, "Intervals".

namespace netprof {

namespace {

// Hundredths, as iperf3 prints; a last remainder a few milliseconds long that still holds
// messages gets as many digits as show it is not empty ("[ 1.000- 1.003 s]", not
// "[ 1.00- 1.00 s]"), up to microseconds.
std::string span_of(const IntervalFigures& interval)
{
  char start[32];
  char end[32];
  int digits = 2;
  for (;; ++digits) {
    std::snprintf(start, sizeof start, "%7.*f", digits, interval.start_seconds);
    std::snprintf(end, sizeof end, "%7.*f", digits, interval.end_seconds);
    if (digits == 6 || std::string_view(start) != std::string_view(end) ||
        interval.start_seconds == interval.end_seconds)
      break;
  }
  return std::string("[") + start + "-" + end + " s]";
}

std::string latency_of(const IntervalFigures& interval, const char* name)
{
  if (interval.latency_count == 0)
    return std::string("  ") + name + " -";
  return std::string("  ") + name + " p50 " +
         format_duration_ns(static_cast<double>(interval.latency_p50_ns)) + " p99 " +
         format_duration_ns(static_cast<double>(interval.latency_p99_ns));
}

} // namespace

std::string format_interval_line(const IntervalFigures& interval, Role role)
{
  std::string line = span_of(interval);
  if (role == Role::publisher) {
    line += "  sent " + format_count(interval.messages);
    line += "  " + format_bytes(static_cast<double>(interval.payload_bytes));
    line += "  attempts " + format_count(interval.sends.attempted);
    line += "  pushed back " + format_count(interval.sends.pushed_back);
    if (interval.sends.failed > 0)
      line += "  failed " + format_count(interval.sends.failed);
    line += "  echoes " + format_count(interval.echoes);
    line += latency_of(interval, "RTT");
  } else {
    line += "  received " + format_count(interval.messages);
    line += "  " + format_bytes(static_cast<double>(interval.payload_bytes));
    line += "  lost " + format_count(interval.lost);
    line += latency_of(interval, "one-way (one host)");
  }
  return line;
}

} // namespace netprof
