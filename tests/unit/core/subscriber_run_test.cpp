// A subscriber's one-way latency: its receive time minus the send stamp a data message carries.
// The stamp comes off the wire, so any value a forger can put there must be recorded safely.

#include "core/subscriber_run.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace {

using namespace netprof;

const Clock::time_point arrival = from_wire_ns(5'000'000'000);

TEST(SubscriberRunOneWay, IsTheArrivalMinusTheSendStamp)
{
  SubscriberRun sut;
  sut.record_one_way(4'999'990'000, arrival);
  sut.record_one_way(4'999'970'000, arrival);

  const LatencySummary figures = sut.figures(1, 0, std::nullopt).one_way;
  EXPECT_EQ(figures.count, 2u);
  EXPECT_EQ(figures.min_ns, 10'000);
  EXPECT_EQ(figures.max_ns, 30'000);
  EXPECT_DOUBLE_EQ(figures.mean_ns, 20'000.0);
}

TEST(SubscriberRunOneWay, AStampFromTheFutureCountsAsZero)
{
  SubscriberRun sut;
  sut.record_one_way(6'000'000'000, arrival);
  sut.record_one_way(std::numeric_limits<std::int64_t>::max(), arrival);

  EXPECT_EQ(sut.one_way.count(), 2u);
  EXPECT_EQ(sut.one_way.max(), 0);
}

TEST(SubscriberRunOneWay, AForgedStampFarInThePastDoesNotOverflow)
{
  SubscriberRun sut;
  sut.record_one_way(std::numeric_limits<std::int64_t>::min(), arrival);
  sut.record_one_way(-5'000'000'000, arrival);

  EXPECT_EQ(sut.one_way.count(), 2u);
  EXPECT_EQ(sut.one_way.max(), Histogram::highest_trackable_ns);
}

} // namespace
