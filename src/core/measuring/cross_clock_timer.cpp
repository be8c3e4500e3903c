#include "core/measuring/cross_clock_timer.hpp"

#include <algorithm>

namespace netprof {

namespace {

__extension__ using Int128 = __int128;

// Some microseconds on top of twice the best round trip so far: room for the offset to drift
// a little during the run before a one-way time would fall below the histogram's 0.
constexpr std::int64_t drift_room_ns = 10'000;

LatencySummary shifted(LatencySummary summary, std::int64_t by) noexcept
{
  if (summary.count == 0)
    return summary;
  summary.min_ns -= by;
  summary.max_ns -= by;
  summary.mean_ns -= static_cast<double>(by);
  summary.p50_ns -= by;
  summary.p90_ns -= by;
  summary.p99_ns -= by;
  summary.p999_ns -= by;
  summary.p9999_ns -= by;
  return summary;
}

} // namespace

void CrossClockTimer::add(const ClockExchange& exchange, bool measured) noexcept
{
  if (!m_estimator.add(exchange) || !measured)
    return;
  if (!m_referenced) {
    // The estimate so far (this exchange included) is within its bound of the true offset,
    // so a bias of twice the best delay keeps every later one-way time above 0.
    const OffsetEstimate estimate = *m_estimator.estimate();
    m_reference_offset = estimate.offset_ns;
    // (A delay beyond what the histograms hold could only come of a probe sent minutes ago.)
    m_bias = 2 * std::min(estimate.min_delay_ns, Histogram::highest_trackable_ns) + drift_room_ns;
    m_referenced = true;
  }
  record(exchange);
}

void CrossClockTimer::record(const ClockExchange& e) noexcept
{
  // Never negative: the estimator refuses an exchange whose turnaround runs backwards.
  m_turnaround->record(e.t3 - e.t2);
  // In 128 bits: the raw differences span whatever the two clocks' boot times are apart.
  const Int128 forward = Int128{e.t2} - e.t1 - m_reference_offset + m_bias;
  const Int128 backward = Int128{e.t4} - e.t3 + m_reference_offset + m_bias;
  const auto fits = [](Int128 value) {
    return value >= 0 && value <= Histogram::highest_trackable_ns;
  };
  if (!fits(forward) || !fits(backward)) {
    ++m_out_of_range;
    return;
  }
  m_forward->record(static_cast<std::int64_t>(forward));
  m_backward->record(static_cast<std::int64_t>(backward));
}

std::optional<CrossClockLatency> CrossClockTimer::result() const noexcept
{
  const std::optional<OffsetEstimate> estimate = m_estimator.estimate();
  if (!estimate)
    return std::nullopt;
  CrossClockLatency latency;
  latency.exchanges = estimate->seen;
  latency.exchanges_used = estimate->used;
  latency.offset_ns = estimate->offset_ns;
  latency.bound_ns = estimate->bound_ns;
  latency.min_delay_ns = estimate->min_delay_ns;
  latency.out_of_range = m_out_of_range;
  latency.turnaround = m_turnaround->summarize();
  // forward = (t2 - t1) - offset = recorded - bias - (offset - reference), and
  // backward = (t4 - t3) + offset = recorded - bias + (offset - reference).
  const Int128 moved = Int128{estimate->offset_ns} - m_reference_offset;
  constexpr Int128 far = Int128{1} << 62;
  if (moved > far || moved < -far) {
    // Only stamps of a clock that leapt by centuries get here: nothing recorded is usable.
    latency.out_of_range += m_forward->count();
    return latency;
  }
  latency.forward = shifted(m_forward->summarize(), static_cast<std::int64_t>(m_bias + moved));
  latency.backward = shifted(m_backward->summarize(), static_cast<std::int64_t>(m_bias - moved));
  return latency;
}

} // namespace netprof
