#include <netprof/histogram.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace netprof {
namespace {

constexpr std::int64_t highest = Histogram::highest_trackable_ns;
constexpr std::size_t sample_count = 200'000;

// Percentiles as integer thousandths of a percent, so the reference rank is exact integer
// arithmetic rather than the floating-point formula under test.
constexpr std::uint64_t milli_percent_scale = 100'000;

std::vector<std::uint64_t> percentile_ladder()
{
  std::vector<std::uint64_t> ladder = {0,      1,      10,     100,    1'000,  25'000,
                                       50'000, 75'000, 90'000, 95'000, 99'000, 99'500,
                                       99'900, 99'990, 99'999, 100'000};
  for (std::uint64_t p = 0; p <= milli_percent_scale; p += 997)
    ladder.push_back(p);
  return ladder;
}

std::int64_t exact_percentile(const std::vector<std::int64_t>& sorted, std::uint64_t milli_percent)
{
  if (milli_percent == 0)
    return sorted.front();
  const std::uint64_t n = sorted.size();
  const std::uint64_t rank = std::max<std::uint64_t>(
      1, (milli_percent * n + milli_percent_scale - 1) / milli_percent_scale);
  return sorted[rank - 1];
}

std::int64_t stored_value(std::int64_t input)
{
  return std::clamp(input, std::int64_t{0}, highest);
}

double exact_mean(const std::vector<std::int64_t>& values)
{
  std::uint64_t sum = 0; // exact: the data sets here stay far below 2^64
  for (const std::int64_t v : values)
    sum += static_cast<std::uint64_t>(stored_value(v));
  return static_cast<double>(static_cast<long double>(sum) / values.size());
}

double exact_stddev(const std::vector<std::int64_t>& values)
{
  const long double mean = exact_mean(values);
  long double squares = 0;
  for (const std::int64_t v : values) {
    const long double deviation = static_cast<long double>(stored_value(v)) - mean;
    squares += deviation * deviation;
  }
  return static_cast<double>(std::sqrt(squares / values.size()));
}

Histogram record_all(const std::vector<std::int64_t>& values)
{
  Histogram sut;
  for (const std::int64_t v : values)
    sut.record(v);
  return sut;
}

void expect_percentiles_match(const Histogram& sut, const std::vector<std::int64_t>& values)
{
  std::vector<std::int64_t> sorted;
  sorted.reserve(values.size());
  for (const std::int64_t v : values)
    sorted.push_back(stored_value(v));
  std::sort(sorted.begin(), sorted.end());
  for (const std::uint64_t milli_percent : percentile_ladder()) {
    const double p = static_cast<double>(milli_percent) / 1000.0;
    const std::int64_t expected = exact_percentile(sorted, milli_percent);
    const std::int64_t actual = sut.percentile(p);
    if (expected < 2048) {
      EXPECT_EQ(actual, expected) << "p=" << p;
    } else {
      const double error = std::abs(static_cast<double>(actual - expected));
      EXPECT_LE(error, 0.001 * static_cast<double>(expected))
          << "p=" << p << " expected=" << expected << " actual=" << actual;
    }
  }
}

void expect_moments_match(const Histogram& sut, const std::vector<std::int64_t>& values)
{
  EXPECT_EQ(sut.count(), values.size());
  const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
  EXPECT_EQ(sut.min(), stored_value(*min_it));
  EXPECT_EQ(sut.max(), stored_value(*max_it));
  const double mean = exact_mean(values);
  EXPECT_NEAR(sut.mean(), mean, 1e-9 * mean);
  const double stddev = exact_stddev(values);
  EXPECT_NEAR(sut.stddev(), stddev, 1e-9 * stddev);
}

std::vector<std::int64_t> uniform_values()
{
  std::mt19937_64 random(1);
  std::uniform_int_distribution<std::int64_t> distribution(0, 10'000'000);
  std::vector<std::int64_t> values(sample_count);
  for (auto& v : values)
    v = distribution(random);
  return values;
}

std::vector<std::int64_t> log_normal_values()
{
  std::mt19937_64 random(2);
  std::normal_distribution<double> distribution(std::log(50'000.0), 1.0);
  std::vector<std::int64_t> values(sample_count);
  for (auto& v : values)
    v = std::llround(std::exp(distribution(random)));
  return values;
}

std::vector<std::int64_t> bimodal_values()
{
  std::mt19937_64 random(3);
  std::normal_distribution<double> fast(20'000.0, 2'000.0);
  std::normal_distribution<double> slow(2'000'000.0, 200'000.0);
  std::bernoulli_distribution is_slow(0.1);
  std::vector<std::int64_t> values(sample_count);
  for (auto& v : values)
    v = std::max<std::int64_t>(0, std::llround(is_slow(random) ? slow(random) : fast(random)));
  return values;
}

std::vector<std::int64_t> heavy_tail_values()
{
  // Pareto with alpha 1.2: the variance is infinite, so the top percentiles span many decades.
  std::mt19937_64 random(4);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::int64_t> values(sample_count);
  for (auto& v : values) {
    const double pareto = 10'000.0 / std::pow(1.0 - uniform(random), 1.0 / 1.2);
    v = std::llround(std::min(pareto, static_cast<double>(highest)));
  }
  return values;
}

std::vector<std::int64_t> bucket_boundary_values()
{
  std::vector<std::int64_t> values;
  for (int k = 0; k <= 40; ++k) {
    const std::int64_t power = std::int64_t{1} << k;
    for (const std::int64_t v : {power - 1, power, power + 1})
      values.push_back(v);
  }
  return values;
}

void expect_same_contents(const Histogram& actual, const Histogram& expected)
{
  EXPECT_EQ(actual.count(), expected.count());
  EXPECT_EQ(actual.saturated(), expected.saturated());
  EXPECT_EQ(actual.min(), expected.min());
  EXPECT_EQ(actual.max(), expected.max());
  EXPECT_EQ(actual.mean(), expected.mean());
  EXPECT_EQ(actual.stddev(), expected.stddev());
  for (const std::uint64_t milli_percent : percentile_ladder()) {
    const double p = static_cast<double>(milli_percent) / 1000.0;
    EXPECT_EQ(actual.percentile(p), expected.percentile(p)) << "p=" << p;
  }
}

TEST(HistogramTest, UniformPercentilesMatchExactNearestRank)
{
  const auto values = uniform_values();
  expect_percentiles_match(record_all(values), values);
}

TEST(HistogramTest, LogNormalPercentilesMatchExactNearestRank)
{
  const auto values = log_normal_values();
  expect_percentiles_match(record_all(values), values);
}

TEST(HistogramTest, BimodalPercentilesMatchExactNearestRank)
{
  const auto values = bimodal_values();
  expect_percentiles_match(record_all(values), values);
}

TEST(HistogramTest, HeavyTailPercentilesMatchExactNearestRank)
{
  const auto values = heavy_tail_values();
  expect_percentiles_match(record_all(values), values);
}

TEST(HistogramTest, MomentsMatchExactComputationOnLogNormalData)
{
  const auto values = log_normal_values();
  expect_moments_match(record_all(values), values);
}

TEST(HistogramTest, MomentsMatchExactComputationOnHeavyTailData)
{
  const auto values = heavy_tail_values();
  expect_moments_match(record_all(values), values);
}

TEST(HistogramTest, StddevStaysExactWhenSpreadIsTinyNextToMean)
{
  Histogram sut;
  for (int i = 0; i < 1000; ++i)
    for (const std::int64_t offset : {0, 1, 2})
      sut.record(1'000'000'000'000 + offset);
  EXPECT_DOUBLE_EQ(sut.mean(), 1'000'000'000'001.0);
  EXPECT_NEAR(sut.stddev(), std::sqrt(2.0 / 3.0), 1e-12);
}

TEST(HistogramTest, AllEqualValuesReportThatValueEverywhere)
{
  const std::vector<std::int64_t> values(10'000, 123'457);
  const Histogram sut = record_all(values);
  for (const std::uint64_t milli_percent : percentile_ladder())
    EXPECT_EQ(sut.percentile(static_cast<double>(milli_percent) / 1000.0), 123'457);
  EXPECT_EQ(sut.mean(), 123'457.0);
  EXPECT_EQ(sut.stddev(), 0.0);
}

TEST(HistogramTest, SingleValueIsReportedExactly)
{
  Histogram sut;
  sut.record(987'654'321);
  const LatencySummary summary = sut.summarize();
  EXPECT_EQ(summary.count, 1u);
  EXPECT_EQ(summary.min_ns, 987'654'321);
  EXPECT_EQ(summary.max_ns, 987'654'321);
  EXPECT_EQ(summary.p50_ns, 987'654'321);
  EXPECT_EQ(summary.p9999_ns, 987'654'321);
  EXPECT_EQ(summary.stddev_ns, 0.0);
}

TEST(HistogramTest, PowersOfTwoAndNeighboursMatchExactNearestRank)
{
  const auto values = bucket_boundary_values();
  const Histogram sut = record_all(values);
  expect_percentiles_match(sut, values);
  expect_moments_match(sut, values);
}

TEST(HistogramTest, EveryValueBelow2048IsExact)
{
  Histogram sut;
  for (std::int64_t v = 0; v < 2048; ++v)
    sut.record(v);
  for (std::int64_t v = 0; v < 2048; ++v) {
    // A p in the middle of value v's rank, so the expected answer is unambiguous.
    const double p = (static_cast<double>(v) + 0.5) / 2048.0 * 100.0;
    EXPECT_EQ(sut.percentile(p), v);
  }
}

TEST(HistogramTest, RankIsNotPushedUpByFloatingPointNoiseInP)
{
  // 0.9 / 100 * 1000 is 9.000000000000002 in doubles; a bare ceil() would pick rank 10.
  std::vector<std::int64_t> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<std::int64_t>(i);
  const Histogram sut = record_all(values);
  for (std::uint64_t milli_percent = 0; milli_percent <= milli_percent_scale; ++milli_percent) {
    const double p = static_cast<double>(milli_percent) / 1000.0;
    ASSERT_EQ(sut.percentile(p), exact_percentile(values, milli_percent)) << "p=" << p;
  }
}

TEST(HistogramTest, SmallAndFirstBoundaryValuesMatchExactNearestRank)
{
  const std::vector<std::int64_t> values = {0, 1, 2, 2047, 2048, 2049, 0, 1, 2047, 2049};
  const Histogram sut = record_all(values);
  expect_percentiles_match(sut, values);
  expect_moments_match(sut, values);
}

TEST(HistogramTest, ValuesNearHighestMatchExactNearestRank)
{
  const std::vector<std::int64_t> values = {highest - 12'345, highest - 1, highest, highest / 2 + 1,
                                            highest - 1'000'000'000};
  const Histogram sut = record_all(values);
  expect_percentiles_match(sut, values);
  expect_moments_match(sut, values);
  EXPECT_EQ(sut.saturated(), 0u);
}

TEST(HistogramTest, ValuesAboveHighestAreRecordedAsHighestAndCounted)
{
  Histogram sut;
  sut.record(1'000);
  sut.record(highest + 1);
  sut.record(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(sut.count(), 3u);
  EXPECT_EQ(sut.saturated(), 2u);
  EXPECT_EQ(sut.max(), highest);
  EXPECT_EQ(sut.percentile(99.0), highest);
  EXPECT_EQ(sut.percentile(50.0), highest);
}

TEST(HistogramTest, NegativeValuesAreRecordedAsZero)
{
  Histogram sut;
  sut.record(-1);
  sut.record(std::numeric_limits<std::int64_t>::min());
  sut.record(10);
  EXPECT_EQ(sut.count(), 3u);
  EXPECT_EQ(sut.saturated(), 0u);
  EXPECT_EQ(sut.min(), 0);
  EXPECT_EQ(sut.percentile(50.0), 0);
  EXPECT_DOUBLE_EQ(sut.mean(), 10.0 / 3.0);
}

TEST(HistogramTest, EmptyHistogramReportsZeros)
{
  const Histogram sut;
  EXPECT_EQ(sut.count(), 0u);
  EXPECT_EQ(sut.min(), 0);
  EXPECT_EQ(sut.max(), 0);
  EXPECT_EQ(sut.mean(), 0.0);
  EXPECT_EQ(sut.stddev(), 0.0);
  EXPECT_EQ(sut.percentile(50.0), 0);
  EXPECT_EQ(sut.summarize().p9999_ns, 0);
}

TEST(HistogramTest, ExtremePercentilesAreExactMinAndMax)
{
  const auto values = uniform_values();
  const Histogram sut = record_all(values);
  EXPECT_EQ(sut.percentile(0.0), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(sut.percentile(100.0), *std::max_element(values.begin(), values.end()));
}

TEST(HistogramTest, PercentileNeverDecreasesWithP)
{
  const Histogram sut = record_all(heavy_tail_values());
  std::int64_t previous = sut.percentile(0.0);
  for (double p = 0.0; p <= 100.0; p += 0.01) {
    const std::int64_t current = sut.percentile(p);
    EXPECT_GE(current, previous) << "p=" << p;
    previous = current;
  }
}

TEST(HistogramTest, SummaryAgreesWithPercentileQueries)
{
  const Histogram sut = record_all(bimodal_values());
  const LatencySummary summary = sut.summarize();
  EXPECT_EQ(summary.count, sut.count());
  EXPECT_EQ(summary.min_ns, sut.min());
  EXPECT_EQ(summary.max_ns, sut.max());
  EXPECT_EQ(summary.mean_ns, sut.mean());
  EXPECT_EQ(summary.stddev_ns, sut.stddev());
  EXPECT_EQ(summary.p50_ns, sut.percentile(50.0));
  EXPECT_EQ(summary.p90_ns, sut.percentile(90.0));
  EXPECT_EQ(summary.p99_ns, sut.percentile(99.0));
  EXPECT_EQ(summary.p999_ns, sut.percentile(99.9));
  EXPECT_EQ(summary.p9999_ns, sut.percentile(99.99));
}

TEST(HistogramTest, MergeEqualsOneHistogramThatRecordedBothSets)
{
  const auto first = log_normal_values();
  auto second = heavy_tail_values();
  second.push_back(highest + 5); // saturation must merge too
  Histogram sut = record_all(first);
  sut.merge(record_all(second));

  auto both = first;
  both.insert(both.end(), second.begin(), second.end());
  expect_same_contents(sut, record_all(both));
}

TEST(HistogramTest, MergeIntoEmptyCopiesTheOther)
{
  const auto values = bimodal_values();
  const Histogram source = record_all(values);
  Histogram sut;
  sut.merge(source);
  expect_same_contents(sut, source);
}

TEST(HistogramTest, MergeOfEmptyChangesNothing)
{
  const auto values = uniform_values();
  Histogram sut = record_all(values);
  sut.merge(Histogram{});
  expect_same_contents(sut, record_all(values));
}

TEST(HistogramTest, ResetForgetsEverything)
{
  Histogram sut = record_all(heavy_tail_values());
  sut.record(highest + 1);
  sut.reset();
  expect_same_contents(sut, Histogram{});
  sut.record(42);
  EXPECT_EQ(sut.min(), 42);
  EXPECT_EQ(sut.max(), 42);
  EXPECT_EQ(sut.percentile(50.0), 42);
}

TEST(HistogramTest, MemoryDoesNotGrowWithRecording)
{
  Histogram sut;
  const std::size_t before = sut.memory_bytes();
  // splitmix64 with a random shift: values spread over every bucket, including saturation.
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 10'000'000; ++i) {
    state += 0x9e3779b97f4a7c15u;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    sut.record(static_cast<std::int64_t>(z >> (22 + (z & 31))));
  }
  EXPECT_EQ(sut.count(), 10'000'000u);
  EXPECT_GT(sut.saturated(), 0u);
  EXPECT_EQ(sut.memory_bytes(), before);
  EXPECT_EQ(sut.memory_bytes(), Histogram{}.memory_bytes());
}

} // namespace
} // namespace netprof

namespace {

TEST(HistogramBins, EveryValueFallsInExactlyOneBin)
{
  netprof::Histogram sut;
  for (std::int64_t v = 1000; v <= 1'000'000; v += 997)
    sut.record(v);

  const auto bins = netprof::log_bins(sut, 12);

  ASSERT_FALSE(bins.empty());
  std::uint64_t total = 0;
  for (const auto& bin : bins)
    total += bin.count;
  EXPECT_EQ(total, sut.count());
  EXPECT_EQ(bins.front().low_ns, sut.min());
  EXPECT_EQ(bins.back().high_ns, sut.max());
  for (std::size_t i = 1; i < bins.size(); ++i)
    EXPECT_EQ(bins[i].low_ns, bins[i - 1].high_ns);
}

TEST(HistogramBins, BinsWidenGeometrically)
{
  netprof::Histogram sut;
  sut.record(1'000);
  sut.record(1'000'000);

  const auto bins = netprof::log_bins(sut, 3);

  ASSERT_EQ(bins.size(), 3u);
  EXPECT_NEAR(static_cast<double>(bins[0].high_ns), 10'000.0, 1.0);
  EXPECT_NEAR(static_cast<double>(bins[1].high_ns), 100'000.0, 1.0);
  EXPECT_EQ(bins[0].count, 1u);
  EXPECT_EQ(bins[1].count, 0u);
  EXPECT_EQ(bins[2].count, 1u);
}

TEST(HistogramBins, OneValueMakesOneBin)
{
  netprof::Histogram sut;
  sut.record(5'000);
  sut.record(5'000);

  const auto bins = netprof::log_bins(sut, 10);

  ASSERT_EQ(bins.size(), 1u);
  EXPECT_EQ(bins[0].count, 2u);
}

TEST(HistogramBins, EmptyHistogramHasNoBins)
{
  EXPECT_TRUE(netprof::log_bins(netprof::Histogram{}, 10).empty());
}

} // namespace
