#include "core/interval_meter.hpp"
#include "core/interval_reporter.hpp"

#include <gtest/gtest.h>

#include <vector>

// --interval's bookkeeping without a thread or a socket: the loop's side of IntervalMeter
// (start, due, close, finish), the reporter's (take), and the figures of one interval.

namespace netprof {
namespace {

using std::chrono::milliseconds;

const Clock::time_point t0{Nanoseconds{1'000'000'000}};

IntervalTotals sent(std::uint64_t messages)
{
  IntervalTotals totals;
  totals.messages = messages;
  totals.payload_bytes = messages * 100;
  return totals;
}

std::vector<IntervalFigures> take_all(IntervalMeter& sut, Clock::time_point phase_start)
{
  std::vector<IntervalFigures> out;
  IntervalTotals before;
  while (sut.take([&](const IntervalMeter::Slot& slot) {
    out.push_back(IntervalReporter::figures(slot, before, phase_start));
    before = slot.totals;
  })) {
  }
  return out;
}

TEST(IntervalMeter, DueOnlyOnceStartedAndAtTheBoundary)
{
  IntervalMeter sut(milliseconds(100));
  EXPECT_FALSE(sut.due(t0 + milliseconds(500)));
  sut.start(t0);
  EXPECT_FALSE(sut.due(t0 + milliseconds(99)));
  EXPECT_TRUE(sut.due(t0 + milliseconds(100)));
}

TEST(IntervalMeter, ClosedIntervalsAreTakenInOrderWithTheirDeltas)
{
  IntervalMeter sut(milliseconds(100));
  sut.start(t0);
  sut.record_latency(1'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(10)));
  sut.record_latency(2'000);
  sut.record_latency(4'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(200), sent(25)));
  const std::vector<IntervalFigures> taken = take_all(sut, t0);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_DOUBLE_EQ(taken[0].start_seconds, 0.0);
  EXPECT_DOUBLE_EQ(taken[0].end_seconds, 0.1);
  EXPECT_EQ(taken[0].messages, 10u);
  EXPECT_EQ(taken[0].payload_bytes, 1'000u);
  EXPECT_EQ(taken[0].latency_count, 1u);
  EXPECT_DOUBLE_EQ(taken[1].start_seconds, 0.1);
  EXPECT_DOUBLE_EQ(taken[1].end_seconds, 0.2);
  EXPECT_EQ(taken[1].messages, 15u);
  EXPECT_EQ(taken[1].latency_count, 2u);
  EXPECT_EQ(taken[1].latency_p99_ns, 4'000); // within the histogram's 0.1%
}

TEST(IntervalMeter, ATakenSlotStartsEmptyForTheLoop)
{
  IntervalMeter sut(milliseconds(100));
  sut.start(t0);
  sut.record_latency(1'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(1)));
  ASSERT_EQ(take_all(sut, t0).size(), 1u);
  ASSERT_TRUE(sut.close(t0 + milliseconds(200), sent(2)));
  const std::vector<IntervalFigures> second = take_all(sut, t0);
  sut.record_latency(3'000); // into the first slot again, which the reporter reset
  ASSERT_TRUE(sut.close(t0 + milliseconds(300), sent(3)));
  const std::vector<IntervalFigures> third = take_all(sut, t0);
  ASSERT_EQ(second.size(), 1u);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(second[0].latency_count, 0u);
  EXPECT_EQ(third[0].latency_count, 1u);
  EXPECT_EQ(third[0].latency_p50_ns, 3'000);
}

TEST(IntervalMeter, TheIntervalGoesOnWhileTheReporterHoldsTheOtherSlot)
{
  IntervalMeter sut(milliseconds(100));
  sut.start(t0);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(10)));
  ASSERT_TRUE(sut.close(t0 + milliseconds(200), sent(20)));
  // Both slots are now the reporter's: the third boundary is skipped.
  EXPECT_FALSE(sut.close(t0 + milliseconds(300), sent(30)));
  sut.record_latency(5'000);
  std::vector<IntervalFigures> taken = take_all(sut, t0);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].messages, 10u);
  EXPECT_EQ(taken[1].messages, 10u);
  sut.finish(t0 + milliseconds(350), sent(35));
  taken = take_all(sut, t0);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_DOUBLE_EQ(taken[0].start_seconds, 0.2); // one interval of 150 ms, not 100
  EXPECT_DOUBLE_EQ(taken[0].end_seconds, 0.35);
  EXPECT_EQ(taken[0].latency_count, 1u);
}

TEST(IntervalMeter, BoundariesStayOnTheGridAfterALateClose)
{
  IntervalMeter sut(milliseconds(100));
  sut.start(t0);
  ASSERT_TRUE(sut.close(t0 + milliseconds(250), sent(1)));
  EXPECT_FALSE(sut.due(t0 + milliseconds(299)));
  EXPECT_TRUE(sut.due(t0 + milliseconds(300)));
}

TEST(IntervalMeter, FinishWithoutAStartClosesNothing)
{
  IntervalMeter sut(milliseconds(100));
  sut.finish(t0, sent(0));
  EXPECT_TRUE(take_all(sut, t0).empty());
}

TEST(IntervalMeter, IntervalsAddUpToTheTotals)
{
  IntervalMeter sut(milliseconds(100));
  sut.start(t0);
  std::uint64_t total = 0;
  std::vector<IntervalFigures> all;
  IntervalTotals before;
  for (int i = 1; i <= 5; ++i) {
    total += static_cast<std::uint64_t>(i) * 7;
    ASSERT_TRUE(sut.close(t0 + milliseconds(100 * i), sent(total)));
    ASSERT_TRUE(sut.take([&](const IntervalMeter::Slot& slot) {
      all.push_back(IntervalReporter::figures(slot, before, t0));
      before = slot.totals;
    }));
  }
  std::uint64_t sum = 0, bytes = 0;
  for (const IntervalFigures& interval : all) {
    sum += interval.messages;
    bytes += interval.payload_bytes;
  }
  EXPECT_EQ(sum, total);
  EXPECT_EQ(bytes, total * 100);
}

TEST(IntervalReporterFigures, LostCountsNewlyMissingNumbersAndNeverGoesNegative)
{
  IntervalMeter::Slot slot;
  slot.start = t0;
  slot.end = t0 + milliseconds(100);
  IntervalTotals before;
  before.missing = 5;
  slot.totals.missing = 8;
  EXPECT_EQ(IntervalReporter::figures(slot, before, t0).lost, 3u);
  slot.totals.missing = 2; // late arrivals filled earlier gaps
  EXPECT_EQ(IntervalReporter::figures(slot, before, t0).lost, 0u);
}

TEST(IntervalReporterFigures, SendAccountingIsPerInterval)
{
  IntervalMeter::Slot slot;
  slot.start = t0;
  slot.end = t0 + milliseconds(100);
  IntervalTotals before;
  before.sends.count(SendResult::sent, SendCause::unspecified);
  slot.totals = before;
  slot.totals.sends.count(SendResult::back_pressured, SendCause::would_block);
  slot.totals.sends.count(SendResult::sent, SendCause::unspecified);
  const IntervalFigures sut = IntervalReporter::figures(slot, before, t0);
  EXPECT_EQ(sut.sends.attempted, 2u);
  EXPECT_EQ(sut.sends.sent, 1u);
  EXPECT_EQ(sut.sends.pushed_back, 1u);
  EXPECT_EQ(sut.sends.of(SendCause::would_block), 1u);
}

// The loop and the reporter on two threads, as in a run (scripts/setup/sanitize.sh runs this
// under ThreadSanitizer): every message and every latency sample lands in exactly one interval.
TEST(IntervalThreads, EverySampleIsInExactlyOneIntervalWhileTheReporterRuns)
{
  IntervalMeter meter(std::chrono::microseconds(200));
  IntervalReporter reporter(meter, Role::publisher, nullptr);
  const auto start = Clock::now();
  meter.start(start);
  std::uint64_t total = 0;
  for (auto now = start; now - start < milliseconds(50); now = Clock::now()) {
    ++total;
    meter.record_latency(100);
    if (meter.due(now))
      meter.close(now, sent(total));
  }
  meter.finish(Clock::now(), sent(total));
  const std::vector<IntervalFigures> figures = reporter.stop();
  ASSERT_FALSE(figures.empty());
  std::uint64_t messages = 0, samples = 0;
  for (const IntervalFigures& interval : figures) {
    messages += interval.messages;
    samples += interval.latency_count;
  }
  EXPECT_EQ(messages, total);
  EXPECT_EQ(samples, total);
}

} // namespace
} // namespace netprof
