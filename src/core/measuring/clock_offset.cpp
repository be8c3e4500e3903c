#include "core/measuring/clock_offset.hpp"

#include <algorithm>
#include <span>

namespace netprof {

bool ClockOffsetEstimator::add(const ClockExchange& e) noexcept
{
  if (e.t1 < 0 || e.t2 < 0 || e.t4 < e.t1 || e.t3 < e.t2 || e.t3 - e.t2 > e.t4 - e.t1)
    return false;
  // With every stamp >= 0 none of these differences can overflow.
  const Interval interval{e.t3 - e.t4, e.t2 - e.t1};
  ++m_seen;
  if (m_kept < best_kept) {
    m_best[m_kept++] = interval;
    return true;
  }
  Interval* worst = std::max_element(m_best.begin(), m_best.end(),
                                     [](auto& a, auto& b) { return a.delay() < b.delay(); });
  if (interval.delay() < worst->delay())
    *worst = interval;
  return true;
}

std::optional<OffsetEstimate> ClockOffsetEstimator::estimate() const noexcept
{
  if (m_kept == 0)
    return std::nullopt;
  const auto kept = std::span(m_best).first(m_kept);
  const Interval best = *std::min_element(kept.begin(), kept.end(),
                                          [](auto& a, auto& b) { return a.delay() < b.delay(); });
  // Every kept interval holds the true offset, so their intersection does; its middle is the
  // estimate. The bound stays half the smallest delay even where the intersection is narrower:
  // the intersection is only as true as the assumption that the offset did not move during
  // the run, and half the best round trip is what NTP itself claims.
  std::int64_t low = best.low;
  std::int64_t high = best.high;
  for (const Interval& interval : kept) {
    low = std::max(low, interval.low);
    high = std::min(high, interval.high);
  }
  if (low > high) {
    // Disjoint: the offset moved (drift, or a clock step). The best exchange alone.
    low = best.low;
    high = best.high;
  }
  OffsetEstimate estimate;
  estimate.offset_ns = low + (high - low) / 2;
  estimate.min_delay_ns = best.delay();
  // Rounded up: the integer estimate may sit half a nanosecond off the interval's middle.
  estimate.bound_ns = best.delay() / 2 + best.delay() % 2;
  estimate.used = m_kept;
  estimate.seen = m_seen;
  return estimate;
}

} // namespace netprof
