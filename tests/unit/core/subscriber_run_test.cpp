// A subscriber's one-way latency: its receive time minus the send stamp a data message carries.
// The stamp comes off the wire, so any value a forger can put there must be recorded safely.

#include "core/roles/subscriber_run.hpp"

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

// A subscriber that got no warm-up and whose first measured message was number 3,600 joined
// late: its own report charges it from there on, as the publisher's does.
TEST(SubscriberRunLateJoiner, IsChargedFromItsFirstMeasuredMessageOn)
{
  SubscriberRun sut;
  for (std::uint64_t sequence = 3600; sequence < 6000; ++sequence)
    if (sequence != 4000)
      sut.sequences.observe(sequence);
  sut.first_sequence = 3600;

  const SubscriberResult figures = sut.figures(2, 0, 6000);
  EXPECT_TRUE(figures.joined_late);
  EXPECT_EQ(figures.joined_at_sequence, 3600u);
  EXPECT_EQ(figures.lost, 1u); // number 4,000, not the 3,600 sent before it joined
}

} // namespace
