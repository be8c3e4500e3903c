#include <netprof/pacer.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

namespace netprof {
namespace {

// Synthetic instants only: the pacer is a pure function of the `now` it is given.
Clock::time_point at_ns(std::int64_t ns)
{
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(Nanoseconds(ns)));
}

std::int64_t ns_between(Clock::time_point from, Clock::time_point to)
{
  return std::chrono::duration_cast<Nanoseconds>(to - from).count();
}

const Clock::time_point start = at_ns(5'000'000'000);

TEST(PacerTest, MessageKIsDueAtStartPlusKPeriods)
{
  const Pacer sut(1000.0, start);
  EXPECT_TRUE(sut.paced());
  EXPECT_EQ(sut.period(), Nanoseconds(1'000'000));
  EXPECT_EQ(sut.due(0), start);
  EXPECT_EQ(sut.due(1), at_ns(5'001'000'000));
  EXPECT_EQ(sut.due(1000), at_ns(6'000'000'000));
}

TEST(PacerTest, FractionalPeriodIsRoundedOnlyInTheReport)
{
  const Pacer sut(3.0, start);
  EXPECT_EQ(sut.period(), Nanoseconds(333'333'333));
  EXPECT_EQ(ns_between(start, sut.due(3)), 1'000'000'000);
}

TEST(PacerTest, ThreeHertzDoesNotDriftOverTenMillionMessages)
{
  const Pacer sut(3.0, start);
  const auto expect_on_schedule = [&](std::uint64_t k) {
    // Exact schedule: k * 1e9 / 3 ns. Compare 3 * actual with k * 1e9 to stay in integers.
    const auto actual = static_cast<std::int64_t>(ns_between(start, sut.due(k)));
    const auto exact_times_3 = static_cast<std::int64_t>(k) * 1'000'000'000;
    EXPECT_LE(std::abs(3 * actual - exact_times_3), 3) << "k=" << k;
  };
  for (std::uint64_t k = 0; k <= 10'000'000; k += 9'973)
    expect_on_schedule(k);
  expect_on_schedule(10'000'000);
}

TEST(PacerTest, NothingIsDueBeforeStart)
{
  const Pacer sut(1000.0, start);
  EXPECT_EQ(sut.messages_due_by(at_ns(0)), 0u);
  EXPECT_EQ(sut.messages_due_by(start - Nanoseconds(1)), 0u);
}

TEST(PacerTest, MessagesDueByCountsScheduleSlotsReached)
{
  const Pacer sut(1000.0, start);
  EXPECT_EQ(sut.messages_due_by(start), 1u);
  EXPECT_EQ(sut.messages_due_by(start + Nanoseconds(999'999)), 1u);
  EXPECT_EQ(sut.messages_due_by(start + Nanoseconds(1'000'000)), 2u);
  EXPECT_EQ(sut.messages_due_by(start + std::chrono::seconds(10)), 10'001u);
}

TEST(PacerTest, MessagesDueByAgreesWithDueAtEverySlotEdge)
{
  const Pacer sut(3.0, start);
  for (std::uint64_t k = 1; k <= 10'000'000; k += 99'991) {
    EXPECT_EQ(sut.messages_due_by(sut.due(k)), k + 1) << "k=" << k;
    EXPECT_EQ(sut.messages_due_by(sut.due(k) - Nanoseconds(1)), k) << "k=" << k;
  }
}

TEST(PacerTest, MessagesDueByIsExactAfterMonthsOfUptime)
{
  // 200 days of steady-clock time: the raw nanosecond count no longer fits a double exactly.
  const Clock::time_point late_start = at_ns(200LL * 24 * 3600 * 1'000'000'000);
  const Pacer sut(1'000'000.0, late_start);
  EXPECT_EQ(sut.messages_due_by(late_start + Nanoseconds(999)), 1u);
  EXPECT_EQ(sut.messages_due_by(late_start + Nanoseconds(1'000)), 2u);
  EXPECT_EQ(sut.messages_due_by(late_start + Nanoseconds(2'999'999)), 3'000u);
}

TEST(PacerTest, UnpacedHasEverythingDueAtStart)
{
  const Pacer sut(0.0, start);
  EXPECT_FALSE(sut.paced());
  EXPECT_EQ(sut.period(), Nanoseconds(0));
  EXPECT_EQ(sut.due(0), start);
  EXPECT_EQ(sut.due(10'000'000), start);
  EXPECT_EQ(sut.messages_due_by(start), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(sut.messages_due_by(at_ns(0)), std::numeric_limits<std::uint64_t>::max());
}

TEST(PacerTest, NegativeNanAndInfiniteRatesAreUnpaced)
{
  EXPECT_FALSE(Pacer(-5.0, start).paced());
  EXPECT_FALSE(Pacer(std::numeric_limits<double>::quiet_NaN(), start).paced());
  EXPECT_FALSE(Pacer(std::numeric_limits<double>::infinity(), start).paced());
}

TEST(PacerTest, FarFutureDueTimesSaturateInsteadOfOverflowing)
{
  const Pacer sut(1e-9, start); // one message every ~32 years
  EXPECT_EQ(sut.due(0), start);
  EXPECT_EQ(sut.due(std::numeric_limits<std::uint64_t>::max()), Clock::time_point::max());
  EXPECT_EQ(sut.messages_due_by(Clock::time_point::max()), 10u);
}

} // namespace
} // namespace netprof
