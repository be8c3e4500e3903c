#include "core/live_status.hpp"

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

} // namespace
} // namespace netprof
