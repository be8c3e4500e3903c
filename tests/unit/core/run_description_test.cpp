// A subscriber reports the run its publisher describes, and names only the settings it was
// given with another value.

#include "core/protocol/run_description.hpp"

#include <gtest/gtest.h>

namespace {

using namespace netprof;

RunConfig publisher()
{
  RunConfig config;
  config.payload_size = 4096;
  config.num_vars = 8;
  config.test_seconds = 1;
  config.send_hz = 1000;
  config.mode = Mode::ping_pong;
  config.warmup_count = 0;
  config.probe_hz = 50;
  config.subscribers = 2;
  config.count_received = 10'000;
  return config;
}

TEST(RunDescription, ASubscriberShowsTheRunsSettingsNotItsDefaults)
{
  RunConfig own; // defaults: -s 128, -t 10, unpaced, stream
  own.role = Role::subscriber;
  own.id = 3;
  std::vector<std::string> disagreements;
  const RunConfig shown = as_described(own, describe_run(publisher()), disagreements);
  EXPECT_EQ(shown.payload_size, 4096u);
  EXPECT_EQ(shown.num_vars, 8u);
  EXPECT_EQ(shown.test_seconds, 1.0);
  EXPECT_FALSE(shown.count);
  EXPECT_EQ(shown.send_hz, 1000.0);
  EXPECT_EQ(shown.mode, Mode::ping_pong);
  EXPECT_EQ(shown.warmup_count, std::optional<std::uint64_t>(0));
  EXPECT_EQ(shown.probe_hz, 50.0);
  EXPECT_EQ(shown.subscribers, 2u);
  EXPECT_EQ(shown.count_received, std::optional<std::uint64_t>(10'000));
  EXPECT_EQ(shown.id, 3u); // its own, not the publisher's
  EXPECT_EQ(shown.role, Role::subscriber);
  EXPECT_TRUE(disagreements.empty()); // it was given none of them
}

TEST(RunDescription, OnlyASettingGivenWithAnotherValueIsNamed)
{
  RunConfig own;
  own.role = Role::subscriber;
  own.payload_size = 128;
  own.send_hz = 1000;
  own.count = 500;
  own.options_given = {"id", "size", "send-hz", "count"};
  std::vector<std::string> disagreements;
  as_described(own, describe_run(publisher()), disagreements);
  EXPECT_EQ(disagreements,
            (std::vector<std::string>{
                "-s was given here as 128 B, but the publisher's run has 4,096 B: the report "
                "shows the run's",
                "--count was given here as 500, but the publisher's run has none (timed): the "
                "report shows the run's"}));
}

} // namespace
