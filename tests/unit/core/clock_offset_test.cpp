// The cross-clock estimate: NTP's offset from the exchanges with the smallest round trip, an
// error bound never narrower than half that round trip, and forward and backward one-way times
// corrected by the offset at report time. Synthetic exchanges with a known offset and known
// (asymmetric) delays on each side.

#include "core/measuring/clock_offset.hpp"
#include "core/measuring/cross_clock_timer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace netprof;

// The subscriber's clock is this far ahead of the publisher's (two hosts booted an hour apart).
constexpr std::int64_t true_offset = 3'600'000'000'123;

struct Path {
  std::int64_t forward = 0;    // publisher -> subscriber
  std::int64_t turnaround = 0; // subscriber's own time between t2 and t3
  std::int64_t backward = 0;   // subscriber -> publisher
};

ClockExchange exchange(std::int64_t t1, const Path& path, std::int64_t offset = true_offset)
{
  const std::int64_t t2 = t1 + path.forward + offset;
  const std::int64_t t3 = t2 + path.turnaround;
  const std::int64_t t4 = t1 + path.forward + path.turnaround + path.backward;
  return {t1, t2, t3, t4};
}

// Queueing on the forward direction only: a few microseconds of wire time each way, up to
// 400 us of queue forward, none back; a few exchanges find the queue empty.
std::vector<Path> asymmetric_paths(std::size_t count, std::uint64_t seed)
{
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> queue(0, 400'000);
  std::uniform_int_distribution<std::int64_t> jitter(0, 3'000);
  std::vector<Path> paths;
  for (std::size_t i = 0; i < count; ++i)
    paths.push_back({20'000 + jitter(random) + (i % 50 == 0 ? 0 : queue(random)),
                     1'000 + jitter(random), 15'000 + jitter(random)});
  return paths;
}

// |actual - expected| <= slack in whole ns (EXPECT_NEAR would go through double).
::testing::AssertionResult near(std::int64_t actual, std::int64_t expected, std::int64_t slack)
{
  if (std::abs(actual - expected) <= slack)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << actual << " is not within " << slack << " of " << expected;
}

TEST(ClockOffsetEstimator, HasNoEstimateBeforeAnExchange)
{
  const ClockOffsetEstimator sut;
  EXPECT_FALSE(sut.estimate().has_value());
}

TEST(ClockOffsetEstimator, ASymmetricExchangeGivesTheOffsetExactly)
{
  ClockOffsetEstimator sut;
  ASSERT_TRUE(sut.add(exchange(1'000'000, {30'000, 5'000, 30'000})));

  const OffsetEstimate estimate = *sut.estimate();
  EXPECT_EQ(estimate.offset_ns, true_offset);
  EXPECT_EQ(estimate.min_delay_ns, 60'000);
  EXPECT_EQ(estimate.bound_ns, 30'000);
}

TEST(ClockOffsetEstimator, AsymmetricDelaysStayWithinTheBound)
{
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    ClockOffsetEstimator sut;
    std::int64_t t1 = 5'000'000;
    std::int64_t min_delay = std::numeric_limits<std::int64_t>::max();
    for (const Path& path : asymmetric_paths(500, seed)) {
      ASSERT_TRUE(sut.add(exchange(t1, path)));
      min_delay = std::min(min_delay, path.forward + path.backward);
      t1 += 1'000'000;
    }
    const OffsetEstimate estimate = *sut.estimate();
    EXPECT_LE(std::abs(estimate.offset_ns - true_offset), estimate.bound_ns) << "seed " << seed;
    EXPECT_EQ(estimate.min_delay_ns, min_delay);
    EXPECT_GE(2 * estimate.bound_ns, min_delay) << "never narrower than half the best delay";
    EXPECT_EQ(estimate.used, ClockOffsetEstimator::best_kept);
    EXPECT_EQ(estimate.seen, 500u);
  }
}

TEST(ClockOffsetEstimator, ConstantAsymmetryIsWithinTheBoundButNotSeen)
{
  // What no two-clock method can tell: a path always 60 us slower one way looks like an offset
  // of 30 us. The estimate is that far off, and the bound still covers it.
  ClockOffsetEstimator sut;
  for (std::int64_t i = 0; i < 100; ++i)
    ASSERT_TRUE(sut.add(exchange(1'000'000 * (i + 1), {80'000, 2'000, 20'000})));

  const OffsetEstimate estimate = *sut.estimate();
  EXPECT_EQ(estimate.offset_ns, true_offset + 30'000);
  EXPECT_EQ(estimate.bound_ns, 50'000);
  EXPECT_LE(std::abs(estimate.offset_ns - true_offset), estimate.bound_ns);
}

TEST(ClockOffsetEstimator, KeepsTheExchangeWithTheSmallestRoundTrip)
{
  ClockOffsetEstimator sut;
  for (std::int64_t i = 0; i < 100; ++i) {
    const Path path = i == 37 ? Path{4'001, 0, 4'000} : Path{50'000 + i * 100, 0, 70'000};
    ASSERT_TRUE(sut.add(exchange(1'000'000 * (i + 1), path)));
  }

  const OffsetEstimate estimate = *sut.estimate();
  EXPECT_EQ(estimate.min_delay_ns, 8'001);
  EXPECT_EQ(estimate.bound_ns, 4'001) << "rounded up, never narrower";
  EXPECT_LE(std::abs(estimate.offset_ns - true_offset), estimate.bound_ns);
}

TEST(ClockOffsetEstimator, RefusesImpossibleExchanges)
{
  ClockOffsetEstimator sut;
  // The subscriber claims to have held the probe longer than the whole round trip.
  EXPECT_FALSE(sut.add({1'000, 5'000, 9'000, 2'000}));
  // The echo back before the probe left.
  EXPECT_FALSE(sut.add({2'000, 5'000, 5'000, 1'000}));
  // Negative stamps, and an echo sent before its probe arrived.
  EXPECT_FALSE(sut.add({-1, 5'000, 5'000, 1'000}));
  EXPECT_FALSE(sut.add({1'000, -5, 5'000, 2'000}));
  EXPECT_FALSE(sut.add({1'000, 6'000, 5'000, 2'000}));
  EXPECT_FALSE(sut.estimate().has_value());
}

TEST(ClockOffsetEstimator, SurvivesStampsAtTheEndsOfTheRange)
{
  ClockOffsetEstimator sut;
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  ASSERT_TRUE(sut.add({0, most - 10, most, 20}));
  ASSERT_TRUE(sut.add({most - 20, 0, 5, most}));
  EXPECT_TRUE(sut.estimate().has_value());

  // The longest round trip there is, alone: its bound is half of it, rounded up, no overflow.
  ClockOffsetEstimator longest;
  ASSERT_TRUE(longest.add({0, 0, 0, most}));
  EXPECT_EQ(longest.estimate()->bound_ns, most / 2 + 1);
  CrossClockTimer timer;
  timer.add({0, 0, 0, most}, true);
  EXPECT_EQ(timer.result()->out_of_range, 1u);
}

TEST(CrossClockTimer, ForwardAndBackwardComeOutWithinTheBound)
{
  CrossClockTimer sut;
  const std::vector<Path> paths = asymmetric_paths(2'000, 7);
  std::vector<std::int64_t> forward;
  std::vector<std::int64_t> backward;
  std::int64_t t1 = 9'000'000;
  for (const Path& path : paths) {
    sut.add(exchange(t1, path), true);
    forward.push_back(path.forward);
    backward.push_back(path.backward);
    t1 += 1'000'000;
  }
  const auto median = [](std::vector<std::int64_t> values) {
    std::nth_element(values.begin(), values.begin() + std::ssize(values) / 2 - 1, values.end());
    return values[values.size() / 2 - 1];
  };

  const CrossClockLatency latency = *sut.result();
  // The bound, plus the histogram's 0.1% of the (biased) recorded value.
  const auto slack = [&](std::int64_t value) { return latency.bound_ns + value / 500 + 1; };
  EXPECT_LE(std::abs(latency.offset_ns - true_offset), latency.bound_ns);
  EXPECT_EQ(latency.forward.count, paths.size());
  EXPECT_EQ(latency.backward.count, paths.size());
  EXPECT_TRUE(near(latency.forward.p50_ns, median(forward), slack(median(forward))));
  EXPECT_TRUE(near(latency.backward.p50_ns, median(backward), slack(median(backward))));
  const std::int64_t forward_min = *std::min_element(forward.begin(), forward.end());
  const std::int64_t forward_max = *std::max_element(forward.begin(), forward.end());
  EXPECT_TRUE(near(latency.forward.min_ns, forward_min, slack(forward_min)));
  EXPECT_TRUE(near(latency.forward.max_ns, forward_max, slack(forward_max)));
  EXPECT_GT(latency.forward.p50_ns, latency.backward.p50_ns + 100'000)
      << "the queued direction is the slower one";
  EXPECT_EQ(latency.out_of_range, 0u);
}

TEST(CrossClockTimer, TheSubscribersTurnaroundComesOutExactlyWhateverTheOffset)
{
  CrossClockTimer sut;
  // Warm-up: no sample. Then turnarounds of 1 to 100 us, on a clock an hour ahead.
  sut.add(exchange(1'000'000, {5'000, 500'000, 5'000}), false);
  for (std::int64_t i = 1; i <= 100; ++i)
    sut.add(exchange(i * 1'000'000'000, {20'000, i * 1'000, 15'000}), true);

  const LatencySummary turnaround = sut.result()->turnaround;
  EXPECT_EQ(turnaround.count, 100u);
  EXPECT_EQ(turnaround.min_ns, 1'000);
  EXPECT_TRUE(near(turnaround.p50_ns, 50'000, 50));
  EXPECT_TRUE(near(turnaround.max_ns, 100'000, 100));
}

TEST(CrossClockTimer, OnOneClockTheOffsetIsZeroWithinItsBound)
{
  CrossClockTimer sut;
  std::int64_t t1 = 1'000'000;
  for (const Path& path : asymmetric_paths(300, 3)) {
    sut.add(exchange(t1, path, 0), true);
    t1 += 1'000'000;
  }
  const CrossClockLatency latency = *sut.result();
  EXPECT_LE(std::abs(latency.offset_ns), latency.bound_ns);
}

TEST(CrossClockTimer, WarmUpExchangesSharpenTheOffsetButAreNotRecorded)
{
  CrossClockTimer sut;
  sut.add(exchange(1'000'000, {5'000, 0, 5'000}), false);
  sut.add(exchange(2'000'000, {90'000, 0, 30'000}), true);

  const CrossClockLatency latency = *sut.result();
  EXPECT_EQ(latency.exchanges, 2u);
  EXPECT_EQ(latency.offset_ns, true_offset);
  EXPECT_EQ(latency.bound_ns, 5'000);
  EXPECT_EQ(latency.forward.count, 1u);
  EXPECT_TRUE(near(latency.forward.p50_ns, 90'000, 200));
  EXPECT_TRUE(near(latency.backward.p50_ns, 30'000, 200));
}

TEST(CrossClockTimer, AClockThatLeapsIsLeftOutNotRecordedAsNonsense)
{
  CrossClockTimer sut;
  sut.add(exchange(1'000'000, {5'000, 0, 5'000}), true);
  // A forged or stepped clock: an hour later by the subscriber's stamps, for the same round trip.
  sut.add(exchange(2'000'000, {5'000, 0, 5'000}, true_offset + 3'600'000'000'000), true);

  const CrossClockLatency latency = *sut.result();
  EXPECT_EQ(latency.forward.count, 1u);
  EXPECT_EQ(latency.out_of_range, 1u);
}

} // namespace
