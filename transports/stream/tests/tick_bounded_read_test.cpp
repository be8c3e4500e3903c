// The bound on a blocking read's SO_RCVTIMEO (common/tick_bounded_read.hpp), which the stream
// and UDP endpoints wait in: a read that finds nothing may end two ticks after its timeout, so
// it is given two ticks less than the wait, and none at all when the wait is shorter.

#include "common/tick_bounded_read.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using netprof::Nanoseconds;
using netprof::transport_common::scheduler_tick;
using netprof::transport_common::tick_bounded_read_timeout;

TEST(TickBoundedRead, LeavesTwoTicksOfTheWaitForTheKernelsRounding)
{
  EXPECT_EQ(tick_bounded_read_timeout(20ms, 4ms), 12ms);         // HZ 250: a soft slice
  EXPECT_EQ(tick_bounded_read_timeout(20ms, 1ms), 18ms);         // HZ 1000
  EXPECT_EQ(tick_bounded_read_timeout(19'950us, 4ms), 11'950us); // a pacer at 50 Hz
}

TEST(TickBoundedRead, AWaitOfTwoTicksOrLessLeavesNoRead)
{
  EXPECT_EQ(tick_bounded_read_timeout(20ms, 10ms), Nanoseconds::zero()); // HZ 100
  EXPECT_EQ(tick_bounded_read_timeout(1ms, 4ms), Nanoseconds::zero());   // a pacer at 1 kHz
  EXPECT_EQ(tick_bounded_read_timeout(Nanoseconds::zero(), 4ms), Nanoseconds::zero());
}

TEST(TickBoundedRead, TheTickIsOneALinuxKernelCanHave)
{
  // CONFIG_HZ is 100 to 1000 (10 ms to 1 ms a tick); 300 gives 3.33 ms.
  EXPECT_GE(scheduler_tick(), 1ms);
  EXPECT_LE(scheduler_tick(), 10ms);
}

} // namespace
