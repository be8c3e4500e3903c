#include <netprof/report.hpp>

#include <gtest/gtest.h>

#include <string>

// --interval's line: what a reader sees once per interval (docs/reading-the-report.md).

namespace netprof {
namespace {

IntervalFigures sample_interval()
{
  IntervalFigures interval;
  interval.start_seconds = 1.0;
  interval.end_seconds = 2.0;
  interval.messages = 812'344;
  interval.payload_bytes = 104'000'000;
  interval.latency_count = 1'000;
  interval.latency_p50_ns = 21'300;
  interval.latency_p99_ns = 48'000;
  return interval;
}

TEST(IntervalLine, PublisherGivesSendsPushBacksEchoesAndRtt)
{
  IntervalFigures interval = sample_interval();
  interval.sends.attempted = 812'350;
  interval.sends.sent = 812'344;
  interval.sends.pushed_back = 6;
  interval.echoes = 1'000;
  EXPECT_EQ(format_interval_line(interval, Role::publisher),
            "[   1.00-   2.00 s]  sent 812,344  104 MB  attempts 812,350  pushed back 6  "
            "echoes 1,000  RTT p50 21.3 us p99 48.0 us");
}

TEST(IntervalLine, SubscriberGivesReceivedLostAndItsOneHostLatency)
{
  IntervalFigures interval = sample_interval();
  interval.lost = 3;
  EXPECT_EQ(format_interval_line(interval, Role::subscriber),
            "[   1.00-   2.00 s]  received 812,344  104 MB  lost 3  one-way (one host) p50 "
            "21.3 us p99 48.0 us");
}

TEST(IntervalLine, AShortLastRemainderShowsItIsNotEmpty)
{
  IntervalFigures interval;
  interval.start_seconds = 1.0;
  interval.end_seconds = 1.0031;
  interval.messages = 2;
  interval.payload_bytes = 128;

  EXPECT_EQ(format_interval_line(interval, Role::subscriber).substr(0, 19), "[  1.000-  1.003 s]");
  interval.end_seconds = 1.000002;
  EXPECT_EQ(format_interval_line(interval, Role::subscriber).substr(0, 25),
            "[1.000000-1.000002 s]  re");
}

TEST(IntervalLine, NoSampleNoLatency)
{
  IntervalFigures interval = sample_interval();
  interval.latency_count = 0;
  const std::string line = format_interval_line(interval, Role::publisher);
  EXPECT_NE(line.find("RTT -"), std::string::npos) << line;
}

TEST(IntervalLine, FailedSendsShowOnlyWhenThereAreSome)
{
  IntervalFigures interval = sample_interval();
  EXPECT_EQ(format_interval_line(interval, Role::publisher).find("failed"), std::string::npos);
  interval.sends.failed = 1;
  EXPECT_NE(format_interval_line(interval, Role::publisher).find("failed 1"), std::string::npos);
}

} // namespace
} // namespace netprof
