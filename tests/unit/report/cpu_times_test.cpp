#include <netprof/report.hpp>

#include <gtest/gtest.h>

namespace {

using netprof::CpuTimes;
using netprof::parse_cpu_times;
using netprof::steal_percent;

TEST(CpuTimes, ReadsTheAggregateLineOfProcStat)
{
  const auto sut = parse_cpu_times("cpu  100 5 50 800 10 1 4 30 0 0\ncpu0 1 2 3 4 5 6 7 8");

  ASSERT_TRUE(sut.has_value());
  EXPECT_EQ(sut->total, 1000u);
  EXPECT_EQ(sut->steal, 30u);
}

TEST(CpuTimes, RefusesAnythingElse)
{
  EXPECT_FALSE(parse_cpu_times("").has_value());
  EXPECT_FALSE(parse_cpu_times("cpu0 1 2 3 4 5 6 7 8").has_value());
  EXPECT_FALSE(parse_cpu_times("cpu  1 2 3 4 5 6 7").has_value()); // no steal field
  EXPECT_FALSE(parse_cpu_times("cpu  1 2 x 4 5 6 7 8").has_value());
}

TEST(StealPercent, IsTheStolenShareOfTheTimeBetweenTwoReadings)
{
  const auto sut = steal_percent(CpuTimes{1000, 30}, CpuTimes{1400, 130});

  ASSERT_TRUE(sut.has_value());
  EXPECT_DOUBLE_EQ(*sut, 25.0);
}

TEST(StealPercent, IsUnknownWithoutTwoReadingsOrWithoutTimePassing)
{
  EXPECT_FALSE(steal_percent(std::nullopt, CpuTimes{1, 0}).has_value());
  EXPECT_FALSE(steal_percent(CpuTimes{1, 0}, std::nullopt).has_value());
  EXPECT_FALSE(steal_percent(CpuTimes{5, 0}, CpuTimes{5, 0}).has_value());
  EXPECT_FALSE(steal_percent(CpuTimes{5, 3}, CpuTimes{9, 2}).has_value());
}

} // namespace
