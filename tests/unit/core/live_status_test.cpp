#include "core/roles/live_status.hpp"

#include <gtest/gtest.h>

// The status line's words: above all, what a role is waiting for.

namespace netprof {
namespace {

TEST(DescribePhase, PublisherSaysHowManySubscribersItWaitsForAndHowManyCame)
{
  EXPECT_EQ(describe_phase(LivePhase::waiting_for_subscribers, 1, 0),
            "waiting for 1 subscriber (0 announced)");
  EXPECT_EQ(describe_phase(LivePhase::waiting_for_subscribers, 3, 2),
            "waiting for 3 subscribers (2 announced)");
}

TEST(DescribePhase, SubscriberSaysWhatItWaitsFor)
{
  EXPECT_EQ(describe_phase(LivePhase::waiting_for_acknowledgement, 0, 0),
            "waiting for the publisher's acknowledgement");
  EXPECT_EQ(describe_phase(LivePhase::waiting_for_data, 0, 0),
            "acknowledged, waiting for the publisher's first data");
}

TEST(DescribePhase, OtherPhasesAreNamed)
{
  EXPECT_EQ(describe_phase(LivePhase::setting_up, 0, 0), "setting up");
  EXPECT_EQ(describe_phase(LivePhase::warming_up, 0, 0), "warming up");
  EXPECT_EQ(describe_phase(LivePhase::measuring, 0, 0), "measuring");
  EXPECT_EQ(describe_phase(LivePhase::ending, 0, 0), "ending");
}

TEST(DescribeWait, NamesTheAddressAndTheTimeLeftOfWait)
{
  const StatusContext context{"127.0.0.1:40000", 10.0};

  EXPECT_EQ(describe_wait(LivePhase::waiting_for_subscribers, context, 3.2),
            " at 127.0.0.1:40000, 7 s of --wait 10 s left");
  EXPECT_EQ(describe_wait(LivePhase::waiting_for_acknowledgement, context, 12.0),
            " at 127.0.0.1:40000, 0.0 s of --wait 10 s left");
}

TEST(DescribeWait, SaysNothingOnceTheRoleStoppedWaiting)
{
  EXPECT_EQ(describe_wait(LivePhase::measuring, {"127.0.0.1:40000", 10.0}, 3.0), "");
}

} // namespace
} // namespace netprof
