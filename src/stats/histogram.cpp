#include <netprof/histogram.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace netprof {

namespace {

// 2048 sub-buckets give 3 significant digits: every bucket past the first is at most 1/1024 of
// its lowest value wide. Bucket b >= 1 covers [1024 * 2^b, 2048 * 2^b) in steps of 2^b, which
// makes the counter index simply (b << 10) + (value >> b): one bit_width and two shifts.
constexpr unsigned sub_bucket_bits = 11;
constexpr unsigned half_bucket_bits = sub_bucket_bits - 1;
constexpr std::uint64_t sub_bucket_mask = (std::uint64_t{1} << sub_bucket_bits) - 1;
constexpr std::uint64_t half_bucket_count = std::uint64_t{1} << half_bucket_bits;

constexpr std::size_t index_of(std::uint64_t value) noexcept
{
  // OR-ing in the mask folds every value below 2048 into bucket 0 without a branch.
  const auto bucket =
      static_cast<unsigned>(std::bit_width(value | sub_bucket_mask)) - sub_bucket_bits;
  return (std::size_t{bucket} << half_bucket_bits) + static_cast<std::size_t>(value >> bucket);
}

constexpr std::size_t counter_count =
    index_of(static_cast<std::uint64_t>(Histogram::highest_trackable_ns)) + 1;

struct BucketRange {
  std::uint64_t lowest;
  std::uint64_t width;
};

constexpr BucketRange range_of(std::size_t index) noexcept
{
  if (index < 2 * half_bucket_count)
    return {index, 1};
  const auto bucket = static_cast<unsigned>(index >> half_bucket_bits) - 1;
  const std::uint64_t sub_bucket = (index & (half_bucket_count - 1)) + half_bucket_count;
  return {sub_bucket << bucket, std::uint64_t{1} << bucket};
}

static_assert(index_of(2047) == 2047 && index_of(2048) == 2048 && index_of(2049) == 2048);
static_assert(range_of(index_of(4095)).lowest == 4094 && range_of(index_of(4095)).width == 2);
static_assert(range_of(counter_count - 1).lowest ==
              static_cast<std::uint64_t>(Histogram::highest_trackable_ns));

// The midpoint halves the worst-case error compared with either edge: <= 1/2048 of the value.
constexpr std::int64_t reported_value(std::size_t index) noexcept
{
  const BucketRange range = range_of(index);
  return static_cast<std::int64_t>(range.lowest + range.width / 2);
}

// Nearest rank: the smallest rank whose share of the count reaches p percent.
std::uint64_t rank_for(double p, std::uint64_t count) noexcept
{
  double exact = p / 100.0 * static_cast<double>(count);
  // p = 99.9 and count = 1000 must give rank 999, not 1000 because the product came out as
  // 999.0000000000001; snapping within a few ulps keeps ceil() honest.
  const double nearest = std::round(exact);
  if (std::abs(exact - nearest) <= exact * 1e-14)
    exact = nearest;
  const double rank = std::ceil(exact);
  if (!(rank >= 1.0))
    return 1;
  if (rank >= static_cast<double>(count))
    return count;
  return static_cast<std::uint64_t>(rank);
}

} // namespace

Histogram::Histogram() : m_counts(counter_count, 0) {}

void Histogram::record(std::int64_t value_ns) noexcept
{
  // Written as selects, not if/else, so the compiler emits conditional moves: the hot path has
  // no data-dependent branches to mispredict on jittery latencies.
  const bool saturated = value_ns > highest_trackable_ns;
  m_saturated += saturated;
  const std::int64_t value = std::clamp(value_ns, std::int64_t{0}, highest_trackable_ns);
  const auto unsigned_value = static_cast<std::uint64_t>(value);

  ++m_counts[index_of(unsigned_value)];
  ++m_count;
  m_min = std::min(m_min, value);
  m_max = std::max(m_max, value);
  m_sum += unsigned_value;
  m_sum_of_squares += Uint128{unsigned_value} * unsigned_value;
}

void Histogram::merge(const Histogram& other) noexcept
{
  for (std::size_t i = 0; i < counter_count; ++i)
    m_counts[i] += other.m_counts[i];
  m_count += other.m_count;
  m_saturated += other.m_saturated;
  // Both sides keep the empty-state sentinels, so merging with an empty side changes nothing.
  m_min = std::min(m_min, other.m_min);
  m_max = std::max(m_max, other.m_max);
  m_sum += other.m_sum;
  m_sum_of_squares += other.m_sum_of_squares;
}

void Histogram::reset() noexcept
{
  std::fill(m_counts.begin(), m_counts.end(), 0);
  m_count = 0;
  m_saturated = 0;
  m_min = highest_trackable_ns;
  m_max = 0;
  m_sum = 0;
  m_sum_of_squares = 0;
}

std::uint64_t Histogram::count() const noexcept
{
  return m_count;
}

std::uint64_t Histogram::saturated() const noexcept
{
  return m_saturated;
}

std::int64_t Histogram::min() const noexcept
{
  return m_count == 0 ? 0 : m_min;
}

std::int64_t Histogram::max() const noexcept
{
  return m_max;
}

double Histogram::mean() const noexcept
{
  if (m_count == 0)
    return 0.0;
  // Split into quotient and remainder so the integer part is exact even past 2^53.
  const Uint128 quotient = m_sum / m_count;
  const Uint128 remainder = m_sum % m_count;
  return static_cast<double>(quotient) +
         static_cast<double>(remainder) / static_cast<double>(m_count);
}

double Histogram::stddev() const noexcept
{
  if (m_count == 0)
    return 0.0;
  // n * variance = Q - S^2 / n. With S = q*n + r that is (Q - q^2*n - 2*q*r) - r^2/n, where the
  // bracket is an exact non-negative integer and r^2/n < n: no catastrophic cancellation even
  // when the spread is tiny next to the mean.
  const Uint128 n = m_count;
  const Uint128 q = m_sum / n;
  const Uint128 r = m_sum % n;
  const Uint128 bracket = m_sum_of_squares - q * q * n - 2 * q * r;
  const double nd = static_cast<double>(m_count);
  const double fraction = static_cast<double>(r) / nd;
  const double variance = static_cast<double>(bracket) / nd - fraction * fraction;
  return variance > 0.0 ? std::sqrt(variance) : 0.0;
}

std::int64_t Histogram::percentile(double p) const noexcept
{
  if (m_count == 0)
    return 0;
  if (!(p > 0.0)) // NaN too: the least surprising answer is the minimum
    return m_min;
  if (p >= 100.0)
    return m_max;
  const std::uint64_t rank = rank_for(p, m_count);
  std::uint64_t cumulative = 0;
  // Nothing lies below min's bucket, so start there instead of at zero.
  for (std::size_t i = index_of(static_cast<std::uint64_t>(m_min)); i < counter_count; ++i) {
    cumulative += m_counts[i];
    if (cumulative >= rank)
      return std::clamp(reported_value(i), m_min, m_max);
  }
  return m_max; // unreachable while counts and m_count agree
}

LatencySummary Histogram::summarize() const noexcept
{
  LatencySummary summary;
  summary.count = m_count;
  summary.min_ns = min();
  summary.max_ns = max();
  summary.mean_ns = mean();
  summary.stddev_ns = stddev();
  if (m_count == 0)
    return summary;

  // One pass over the counters for all five percentiles; ranks ascend with p.
  const std::array<std::uint64_t, 5> ranks = {rank_for(50.0, m_count), rank_for(90.0, m_count),
                                              rank_for(99.0, m_count), rank_for(99.9, m_count),
                                              rank_for(99.99, m_count)};
  std::array<std::int64_t, 5> values{};
  std::size_t next = 0;
  std::uint64_t cumulative = 0;
  for (std::size_t i = index_of(static_cast<std::uint64_t>(m_min));
       i < counter_count && next < ranks.size(); ++i) {
    cumulative += m_counts[i];
    while (next < ranks.size() && cumulative >= ranks[next])
      values[next++] = std::clamp(reported_value(i), m_min, m_max);
  }
  summary.p50_ns = values[0];
  summary.p90_ns = values[1];
  summary.p99_ns = values[2];
  summary.p999_ns = values[3];
  summary.p9999_ns = values[4];
  return summary;
}

std::size_t Histogram::memory_bytes() const noexcept
{
  return sizeof(*this) + m_counts.capacity() * sizeof(std::uint64_t);
}

std::uint64_t Histogram::count_below(std::int64_t value_ns) const noexcept
{
  const auto clamped = std::clamp<std::int64_t>(value_ns, 0, highest_trackable_ns);
  const std::size_t end = index_of(static_cast<std::uint64_t>(clamped));
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < end; ++i)
    below += m_counts[i];
  return below;
}

std::vector<HistogramBin> log_bins(const Histogram& histogram, std::size_t bins)
{
  std::vector<HistogramBin> result;
  if (histogram.count() == 0 || bins == 0)
    return result;
  const std::int64_t low = histogram.min();
  const std::int64_t high = histogram.max();
  if (low == high) {
    result.push_back({low, high, histogram.count()});
    return result;
  }
  // Edges at low * (high/low)^(i/bins); a zero minimum starts the scale at 1 ns.
  const double first = static_cast<double>(std::max<std::int64_t>(low, 1));
  const double ratio = static_cast<double>(high) / first;
  std::uint64_t counted = 0;
  std::int64_t edge = low;
  for (std::size_t i = 1; i <= bins; ++i) {
    const bool last = i == bins;
    const auto next =
        last ? high
             : static_cast<std::int64_t>(
                   first * std::pow(ratio, static_cast<double>(i) / static_cast<double>(bins)));
    if (!last && next <= edge)
      continue; // narrower than a nanosecond: merged into the next bin
    const std::uint64_t upto = last ? histogram.count() : histogram.count_below(next);
    result.push_back({edge, next, upto - counted});
    counted = upto;
    edge = next;
  }
  return result;
}

} // namespace netprof
