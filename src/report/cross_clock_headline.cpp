#include "cross_clock_headline.hpp"

namespace netprof {

const CrossClockLatency* leading_cross_clock(const RunReport& report) noexcept
{
  if (report.subscribers.size() != 1 || !report.subscribers.front().cross_clock)
    return nullptr;
  const CrossClockLatency& latency = *report.subscribers.front().cross_clock;
  if (latency.forward.count == 0 || latency.backward.count == 0 || latency.out_of_range > 0)
    return nullptr;
  const double median = static_cast<double>(latency.forward.p50_ns);
  if (latency.bound_ns < 0 || static_cast<double>(latency.bound_ns) > sound_bound_share * median)
    return nullptr;
  return &latency;
}

} // namespace netprof
