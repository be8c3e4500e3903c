#include "core/measuring/interval_meter.hpp"
#include "core/measuring/interval_reporter.hpp"

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

// What IntervalReporter's thread does, on the test's thread: takes what is closed, in order,
// keeping the totals the next interval's figures start from.
class Taker {
public:
  explicit Taker(IntervalMeter& meter) : m_meter(meter) {}

  std::vector<IntervalFigures> take_all()
  {
    std::vector<IntervalFigures> out;
    while (m_meter.take([&](const IntervalMeter::Slot& slot) {
      out.push_back(IntervalReporter::figures(slot, m_before, t0));
      m_before = slot.totals;
    })) {
    }
    return out;
  }

private:
  IntervalMeter& m_meter;
  IntervalTotals m_before;
};

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
  Taker reporter(sut);
  sut.start(t0);
  sut.record_latency(1'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(10)));
  const std::vector<IntervalFigures> first = reporter.take_all();
  sut.record_latency(2'000);
  sut.record_latency(4'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(200), sent(25)));
  const std::vector<IntervalFigures> second = reporter.take_all();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_DOUBLE_EQ(first[0].start_seconds, 0.0);
  EXPECT_DOUBLE_EQ(first[0].end_seconds, 0.1);
  EXPECT_EQ(first[0].messages, 10u);
  EXPECT_EQ(first[0].payload_bytes, 1'000u);
  EXPECT_EQ(first[0].latency_count, 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_DOUBLE_EQ(second[0].start_seconds, 0.1);
  EXPECT_DOUBLE_EQ(second[0].end_seconds, 0.2);
  EXPECT_EQ(second[0].messages, 15u);
  EXPECT_EQ(second[0].latency_count, 2u);
  EXPECT_EQ(second[0].latency_p99_ns, 4'000); // the maximum: exact
}

TEST(IntervalMeter, ATakenSlotStartsEmptyForTheLoop)
{
  IntervalMeter sut(milliseconds(100));
  Taker reporter(sut);
  sut.start(t0);
  sut.record_latency(1'000);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(1)));
  ASSERT_EQ(reporter.take_all().size(), 1u);
  ASSERT_TRUE(sut.close(t0 + milliseconds(200), sent(2)));
  const std::vector<IntervalFigures> second = reporter.take_all();
  sut.record_latency(3'000); // into the first slot again, which the reporter reset
  ASSERT_TRUE(sut.close(t0 + milliseconds(300), sent(3)));
  const std::vector<IntervalFigures> third = reporter.take_all();
  ASSERT_EQ(second.size(), 1u);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(second[0].latency_count, 0u);
  EXPECT_EQ(third[0].latency_count, 1u);
  EXPECT_EQ(third[0].latency_p50_ns, 3'000);
}

TEST(IntervalMeter, TheIntervalGoesOnWhileTheReporterHoldsTheClosedOne)
{
  IntervalMeter sut(milliseconds(100));
  Taker reporter(sut);
  sut.start(t0);
  ASSERT_TRUE(sut.close(t0 + milliseconds(100), sent(10)));
  // The reporter has not taken it yet: the second boundary is skipped.
  EXPECT_FALSE(sut.close(t0 + milliseconds(200), sent(20)));
  sut.record_latency(5'000);
  std::vector<IntervalFigures> taken = reporter.take_all();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].messages, 10u);
  sut.finish(t0 + milliseconds(250), sent(25));
  taken = reporter.take_all();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_DOUBLE_EQ(taken[0].start_seconds, 0.1); // one interval of 150 ms, not 100
  EXPECT_DOUBLE_EQ(taken[0].end_seconds, 0.25);
  EXPECT_EQ(taken[0].messages, 15u);
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
  EXPECT_TRUE(Taker(sut).take_all().empty());
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

TEST(IntervalThreads, AnEmptyRemainderClosedAsThePhaseEndsIsNoInterval)
{
  IntervalMeter meter(milliseconds(100));
  IntervalReporter reporter(meter, Role::subscriber, nullptr);
  meter.start(t0);
  meter.record_latency(100);
  meter.close(t0 + milliseconds(100), sent(5));
  meter.finish(t0 + milliseconds(101), sent(5)); // the phase ended 1 ms later, nothing in it

  const std::vector<IntervalFigures> figures = reporter.stop();

  ASSERT_EQ(figures.size(), 1U);
  EXPECT_EQ(figures[0].messages, 5U);
}

TEST(IntervalThreads, AShortRemainderWithMessagesIsKept)
{
  IntervalMeter meter(milliseconds(100));
  IntervalReporter reporter(meter, Role::subscriber, nullptr);
  meter.start(t0);
  meter.close(t0 + milliseconds(100), sent(5));
  meter.finish(t0 + milliseconds(101), sent(6));

  EXPECT_EQ(reporter.stop().size(), 2U);
}

} // namespace
} // namespace netprof
