#pragma once

// NTP's estimate of how far one subscriber's clock is from the publisher's, from probe
// exchanges: t1 (probe sent) and t4 (echo received) on the publisher's clock, t2 (probe arrived)
// and t3 (echo sent) on the subscriber's. For one exchange
//   delay  = (t4 - t1) - (t3 - t2)            the round trip minus the subscriber's turnaround
//   offset = ((t2 - t1) + (t3 - t4)) / 2       subscriber clock minus publisher clock
// and, since neither direction can take less than no time, the true offset lies in
// [t3 - t4, t2 - t1], which is offset ± delay/2. The exchanges with the smallest delay pin it
// down best (least queueing either way), so only those are kept: a fixed best-of set, no
// allocation, a few compares per exchange.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace netprof {

struct ClockExchange {
  std::int64_t t1 = 0; // publisher: probe sent
  std::int64_t t2 = 0; // subscriber: probe arrived
  std::int64_t t3 = 0; // subscriber: echo sent
  std::int64_t t4 = 0; // publisher: echo received
};

struct OffsetEstimate {
  std::int64_t offset_ns = 0;    // subscriber clock minus publisher clock
  std::int64_t bound_ns = 0;     // the true offset lies within offset ± bound_ns
  std::int64_t min_delay_ns = 0; // the smallest delay seen; bound_ns >= min_delay_ns / 2
  std::size_t used = 0;          // exchanges the estimate was taken from
  std::uint64_t seen = 0;        // exchanges offered and found possible
};

class ClockOffsetEstimator {
public:
  static constexpr std::size_t best_kept = 8;

  // False, and nothing learnt, for an impossible exchange: a stamp below 0 (steady clocks count
  // from boot), the echo back before the probe left, or the subscriber holding the probe longer
  // than the whole round trip (its stamps are forged, or its clock jumped).
  bool add(const ClockExchange& exchange) noexcept;

  // None until an exchange was added.
  std::optional<OffsetEstimate> estimate() const noexcept;

private:
  // One exchange as the interval the offset must lie in: [low, high], high - low = delay.
  struct Interval {
    std::int64_t low = 0;  // t3 - t4
    std::int64_t high = 0; // t2 - t1
    std::int64_t delay() const noexcept { return high - low; }
  };

  std::array<Interval, best_kept> m_best{};
  std::size_t m_kept = 0;
  std::uint64_t m_seen = 0;
};

} // namespace netprof
