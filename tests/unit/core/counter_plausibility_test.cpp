// Final counters that could not be true of the run are refused (docs/hostile-input.md,
// "Joining a run"); real ones of every shape pass.

#include "core/protocol/counter_plausibility.hpp"

#include <gtest/gtest.h>

namespace {

using namespace netprof;
using namespace std::chrono_literals;

// 1,000 messages of 128 B sent over 1 s; a subscriber that got them all, once each.
CounterLimits limits()
{
  CounterLimits limits;
  limits.sent = 1000;
  limits.probes_sent = 100;
  limits.payload_size = 128;
  limits.records_per_message = 0;
  limits.measured_so_far = 1s;
  return limits;
}

wire::SubscriberCounters all_received()
{
  wire::SubscriberCounters c;
  c.received = c.unique = 1000;
  c.datagrams = 1000;
  c.payload_bytes = 1000 * 128;
  c.wire_bytes = 1000 * (128 + 52);
  c.first_to_last_ns = 999'000'000;
  c.probes_echoed = 100;
  return c;
}

TEST(CounterPlausibility, RealCountersOfEveryShapePass)
{
  EXPECT_EQ(implausibility(all_received(), limits()), nullptr);
  wire::SubscriberCounters lossy = all_received();
  lossy.received = lossy.unique = 10;
  lossy.datagrams = 10;
  lossy.payload_bytes = 10 * 128;
  lossy.wire_bytes = 10 * 180;
  EXPECT_EQ(implausibility(lossy, limits()), nullptr);
  EXPECT_EQ(implausibility(wire::SubscriberCounters{}, limits()), nullptr); // got nothing
  wire::SubscriberCounters duplicated = all_received();
  duplicated.received = 1200;
  duplicated.duplicates = 200;
  duplicated.datagrams = 1200;
  duplicated.payload_bytes = 1200 * 128;
  duplicated.wire_bytes = 1200 * 180;
  duplicated.probes_echoed = 120; // duplicated probes are echoed again
  EXPECT_EQ(implausibility(duplicated, limits()), nullptr);
  // A burst: shared memory drains a full ring in microseconds, well within the rate bound.
  wire::SubscriberCounters burst = all_received();
  burst.first_to_last_ns = 20'000;
  EXPECT_EQ(implausibility(burst, limits()), nullptr);
  // The subscriber's clock may run a little long against the publisher's phase.
  wire::SubscriberCounters long_clock = all_received();
  long_clock.first_to_last_ns = 1'030'000'000;
  EXPECT_EQ(implausibility(long_clock, limits()), nullptr);
}

TEST(CounterPlausibility, TheReviewersForgeryIsRefused)
{
  // Shown as 2.00 T msg/s over a 1 ns measured time.
  wire::SubscriberCounters forged = all_received();
  forged.first_to_last_ns = 1;
  EXPECT_STREQ(implausibility(forged, limits()), "a message rate no transport reaches");
}

TEST(CounterPlausibility, EachImpossibleFigureIsNamed)
{
  const auto refused = [](auto change) {
    wire::SubscriberCounters c = all_received();
    change(c);
    const char* why = implausibility(c, limits());
    return why == nullptr ? std::string("(accepted)") : std::string(why);
  };
  EXPECT_EQ(refused([](auto& c) { c.unique = c.received = 1001; }),
            "more distinct messages than were sent");
  EXPECT_EQ(refused([](auto& c) { c.duplicates = 1001; }),
            "more distinct or duplicate messages than were received");
  EXPECT_EQ(refused([](auto& c) { c.payload_bytes += 1; }), "payload bytes that disagree with -s");
  EXPECT_EQ(refused([](auto& c) { c.datagrams = 999; }),
            "fewer datagrams or wire bytes than messages and payload");
  EXPECT_EQ(refused([](auto& c) { c.probes_echoed = 101; }), "more probes echoed than were sent");
  EXPECT_EQ(refused([](auto& c) { c.records_decoded = 1; }), "more records than were sent");
  EXPECT_EQ(refused([](auto& c) { c.first_to_last_ns = 2'000'000'000; }),
            "a span longer than the measured phase");
  // Received wraps the payload product around to a value that matches: the rate still tells.
  EXPECT_EQ(refused([](auto& c) {
              c.received = c.datagrams = std::uint64_t{1} << 57;
              c.duplicates = c.received - c.unique;
              c.payload_bytes = c.received * 128;
              c.wire_bytes = c.payload_bytes;
            }),
            "a message rate no transport reaches");
}

} // namespace
