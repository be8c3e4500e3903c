#include <netprof/report.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace netprof {
namespace {

TEST(ComputeThroughput, NoMessagesGiveZeroRates)
{
  wire::SubscriberCounters counters;
  Throughput sut = compute_throughput(counters);
  EXPECT_EQ(sut.seconds, 0.0);
  EXPECT_EQ(sut.messages_per_second, 0.0);
  EXPECT_EQ(sut.payload_bytes_per_second, 0.0);
}

TEST(ComputeThroughput, OneMessageHasNoIntervalToMeasure)
{
  wire::SubscriberCounters counters;
  counters.received = 1;
  counters.datagrams = 1;
  counters.payload_bytes = 100;
  counters.first_to_last_ns = 0;
  Throughput sut = compute_throughput(counters);
  EXPECT_EQ(sut.messages_per_second, 0.0);
  EXPECT_EQ(sut.datagrams_per_second, 0.0);
  EXPECT_EQ(sut.payload_bytes_per_second, 0.0);
  EXPECT_EQ(sut.wire_bytes_per_second, 0.0);
}

TEST(ComputeThroughput, ZeroSpanGivesZeroRatesNotInfinity)
{
  wire::SubscriberCounters counters;
  counters.received = 5; // all in one clock tick
  counters.datagrams = 5;
  counters.first_to_last_ns = 0;
  Throughput sut = compute_throughput(counters);
  EXPECT_EQ(sut.messages_per_second, 0.0);
  EXPECT_EQ(sut.datagrams_per_second, 0.0);
}

TEST(ComputeThroughput, NMessagesSpanNMinusOneIntervals)
{
  // 11 messages, one every 100 ms: 10 intervals over 1 s is 10 msg/s, not 11.
  wire::SubscriberCounters counters;
  counters.received = 11;
  counters.datagrams = 22;
  counters.payload_bytes = 11 * 1000;
  counters.wire_bytes = 11 * 1052;
  counters.first_to_last_ns = 1'000'000'000;
  Throughput sut = compute_throughput(counters);
  EXPECT_DOUBLE_EQ(sut.seconds, 1.0);
  EXPECT_DOUBLE_EQ(sut.messages_per_second, 10.0);
  EXPECT_DOUBLE_EQ(sut.datagrams_per_second, 20.0);
  EXPECT_DOUBLE_EQ(sut.payload_bytes_per_second, 10'000.0);
  EXPECT_DOUBLE_EQ(sut.wire_bytes_per_second, 10'520.0);
}

TEST(ComputeThroughput, SecondsAreReportedEvenWithoutRates)
{
  wire::SubscriberCounters counters;
  counters.received = 1;
  counters.first_to_last_ns = 2'500'000'000;
  EXPECT_DOUBLE_EQ(compute_throughput(counters).seconds, 2.5);
}

TEST(LossPercent, IsLostOverWhatWasSent)
{
  SubscriberResult sut;
  EXPECT_EQ(loss_percent(sut), 0.0);
  sut.counters.unique = 75;
  sut.lost = 25;
  EXPECT_DOUBLE_EQ(loss_percent(sut), 25.0);
  sut.counters.unique = 0;
  EXPECT_DOUBLE_EQ(loss_percent(sut), 100.0);
}

TEST(HostFacts, CollectsWithoutThrowing)
{
  HostFacts sut;
  EXPECT_NO_THROW(sut = collect_host_facts());
  EXPECT_FALSE(sut.cpu_model.empty()); // "unknown" at worst
#ifdef __linux__
  EXPECT_FALSE(sut.hostname.empty());
  EXPECT_EQ(sut.kernel.rfind("Linux ", 0), 0u);
  EXPECT_GT(sut.cores, 0u);
  // Containers may hide /proc/sys/net; only check the value when the file is there.
  if (std::ifstream("/proc/sys/net/core/rmem_max")) {
    EXPECT_GT(sut.rmem_max, 0u);
  }
#endif
}

} // namespace
} // namespace netprof
