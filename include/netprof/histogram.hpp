#pragma once

// A fixed-memory log-linear histogram of nanosecond values (HdrHistogram-style):
// 3 significant decimal digits, relative error <= 0.1% for any recorded value, whatever the
// run length. min, max, count, mean and stddev are exact. Mergeable across subscribers.
//
// Layout: 2048 one-nanosecond buckets for 0..2047, then for each further power of two
// [2^k, 2^(k+1)) 1024 buckets of width 2^(k-10). A bucket is never wider than 1/1024 of its
// lowest value, and percentiles report the bucket's midpoint, so the error is <= 1/2048.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof {

struct LatencySummary {
  std::uint64_t count = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double mean_ns = 0.0;
  double stddev_ns = 0.0;
  std::int64_t p50_ns = 0;
  std::int64_t p90_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t p999_ns = 0;
  std::int64_t p9999_ns = 0;
};

struct HistogramBin {
  std::int64_t low_ns = 0;  // inclusive
  std::int64_t high_ns = 0; // exclusive, except the last bin, which includes the maximum
  std::uint64_t count = 0;
};

class Histogram;

// The distribution in `bins` bins of equal width on a log scale from min to max (one bin when
// every value is the same); empty for an empty histogram.
std::vector<HistogramBin> log_bins(const Histogram& histogram, std::size_t bins);

class Histogram {
public:
  // Largest value kept exactly in its bucket; anything above is recorded as this value and
  // counted in saturated(). About 18 minutes in ns.
  static constexpr std::int64_t highest_trackable_ns = std::int64_t{1} << 40;

  Histogram();

  // Never allocates. Negative values are recorded as 0.
  void record(std::int64_t value_ns) noexcept;

  void merge(const Histogram& other) noexcept;
  void reset() noexcept;

  std::uint64_t count() const noexcept;
  std::uint64_t saturated() const noexcept;
  std::int64_t min() const noexcept; // 0 when empty
  std::int64_t max() const noexcept; // 0 when empty
  double mean() const noexcept;
  double stddev() const noexcept; // population standard deviation

  // Nearest-rank percentile, p in [0, 100]: the value v such that at least p% of the recorded
  // values are <= v, within the histogram's resolution and clamped to [min, max].
  std::int64_t percentile(double p) const noexcept;

  LatencySummary summarize() const noexcept;

  // How many recorded values lie in buckets below the bucket of `value_ns` (so, within the
  // histogram's resolution, below value_ns). For drawing distributions, not for the hot path.
  std::uint64_t count_below(std::int64_t value_ns) const noexcept;

  // Bytes this histogram holds; fixed at construction, recording never changes it.
  std::size_t memory_bytes() const noexcept;

private:
  // Sums are kept exactly: values are <= 2^40, so even the sum of squares fits in 128 bits for
  // 2^48 samples, and mean/stddev lose nothing to accumulated rounding or cancellation.
  __extension__ using Uint128 = unsigned __int128;

  std::vector<std::uint64_t> m_counts; // sized once in the constructor
  std::uint64_t m_count = 0;
  std::uint64_t m_saturated = 0;
  // min starts at the largest value so record() needs no "first value" branch; min() hides it.
  std::int64_t m_min = highest_trackable_ns;
  std::int64_t m_max = 0;
  Uint128 m_sum = 0;
  Uint128 m_sum_of_squares = 0;
};

} // namespace netprof
