#pragma once

#include "core/measuring/clock_offset.hpp"

#include <netprof/histogram.hpp>
#include <netprof/report.hpp>

#include <cstdint>
#include <memory>
#include <optional>

namespace netprof {

// One subscriber's one-way latency across clocks. The offset is known only at the end, so each
// measured exchange's raw differences (t2 - t1 forward, t4 - t3 backward) are recorded against
// a reference offset fixed at the first measured exchange, plus a bias that keeps them above 0
// (the histogram holds no negative values); the report then shifts every figure by the final
// offset's distance from the reference. A constant shift moves every percentile, the minimum,
// the maximum and the mean by exactly that much, so nothing is lost but the histogram's own
// 0.1% resolution, taken on the biased values. The subscriber's turnaround (t3 - t2) needs no
// offset: both stamps are its own clock's.
class CrossClockTimer {
public:
  CrossClockTimer()
      : m_forward(std::make_unique<Histogram>()), m_backward(std::make_unique<Histogram>()),
        m_turnaround(std::make_unique<Histogram>())
  {
  }

  // Every possible exchange feeds the estimate (warm-up ones too: the clocks are the same);
  // only measured ones are recorded. Never allocates.
  void add(const ClockExchange& exchange, bool measured) noexcept;

  // None until an exchange was added.
  std::optional<CrossClockLatency> result() const noexcept;

private:
  void record(const ClockExchange& exchange) noexcept;

  ClockOffsetEstimator m_estimator;
  bool m_referenced = false;
  std::int64_t m_reference_offset = 0;
  std::int64_t m_bias = 0;
  std::uint64_t m_out_of_range = 0;
  std::unique_ptr<Histogram> m_forward;
  std::unique_ptr<Histogram> m_backward;
  std::unique_ptr<Histogram> m_turnaround;
};

} // namespace netprof
