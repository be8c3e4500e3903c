// The paced publisher's waiting decisions (--pace) and the hybrid margin it learns.

#include "core/scheduling/pace_wait.hpp"

#include <gtest/gtest.h>

namespace {

using namespace netprof;
using std::chrono::microseconds;

const Clock::time_point due = Clock::time_point{} + std::chrono::seconds(10);

TEST(NextPaceStep, SendsOnceTheDueTimeHasCome)
{
  for (PaceMode mode : {PaceMode::sleep, PaceMode::spin, PaceMode::hybrid}) {
    EXPECT_EQ(next_pace_step(mode, due, due, microseconds(50)).action, PaceAction::send);
    EXPECT_EQ(next_pace_step(mode, due + microseconds(3), due, microseconds(50)).action,
              PaceAction::send);
  }
}

TEST(NextPaceStep, SleepSleepsAllTheWayToTheDueTime)
{
  const PaceStep sut =
      next_pace_step(PaceMode::sleep, due - microseconds(5), due, microseconds(50));
  EXPECT_EQ(sut.action, PaceAction::sleep);
  EXPECT_EQ(sut.until, due);
}

TEST(NextPaceStep, SpinNeverSleeps)
{
  EXPECT_EQ(
      next_pace_step(PaceMode::spin, due - std::chrono::seconds(1), due, microseconds(50)).action,
      PaceAction::poll);
}

TEST(NextPaceStep, HybridSleepsUntilTheMarginThenPolls)
{
  const PaceStep far =
      next_pace_step(PaceMode::hybrid, due - microseconds(900), due, microseconds(50));
  EXPECT_EQ(far.action, PaceAction::sleep);
  EXPECT_EQ(far.until, due - microseconds(50));
  const PaceStep near =
      next_pace_step(PaceMode::hybrid, due - microseconds(50), due, microseconds(50));
  EXPECT_EQ(near.action, PaceAction::poll);
}

TEST(HybridMargin, StartsWithRoomForAWakeUp)
{
  const HybridMargin sut;
  EXPECT_GE(sut.margin(), HybridMargin::initial);
  EXPECT_LE(sut.margin(), HybridMargin::largest);
}

TEST(HybridMargin, WidensAtOnceForALateWakeUpAndNarrowsAgainWhenSleepsAreOnTime)
{
  HybridMargin sut;
  sut.woke(due, due + microseconds(120));
  EXPECT_GT(sut.margin(), microseconds(120));
  for (int i = 0; i < 200; ++i)
    sut.woke(due, due + microseconds(1));
  EXPECT_EQ(sut.margin(), HybridMargin::smallest);
}

TEST(HybridMargin, IsBoundedWhateverTheStall)
{
  HybridMargin sut;
  sut.woke(due, due + std::chrono::milliseconds(30));
  EXPECT_EQ(sut.margin(), HybridMargin::largest);
  sut.woke(due, due - microseconds(10)); // an early wake-up is no lateness
  EXPECT_LE(sut.margin(), HybridMargin::largest);
}

} // namespace
