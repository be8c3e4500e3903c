// The stream publisher's looks for echoes: every couple of microseconds while the newest probe
// is young, thinning out as it ages, never further apart than the cap; so an echo is handed
// over at most max(2 us, min(round trip / 16, 50 us)) after it arrived.

#include "core/measuring/echo_poll_cadence.hpp"

#include <gtest/gtest.h>

namespace {

using namespace netprof;
using std::chrono::microseconds;

const Clock::time_point start{microseconds(1'000'000)};

// Steps the clock by `step` and looks whenever the cadence says so, from `from` to `until`;
// returns the longest gap between two looks (the first measured from `from`).
Nanoseconds longest_gap(EchoPollCadence& sut, Clock::time_point from, Clock::time_point until,
                        Nanoseconds step)
{
  Nanoseconds longest{0};
  Clock::time_point last = from;
  for (Clock::time_point now = from; now <= until; now += step) {
    if (sut.due(now)) {
      longest = std::max(longest, now - last);
      sut.looked(now);
      last = now;
    }
  }
  return longest;
}

TEST(EchoPollCadence, LooksEveryTwoMicrosecondsWhileTheProbeIsYoung)
{
  EchoPollCadence sut;
  sut.restart(start);
  sut.probe_sent(start);
  EXPECT_FALSE(sut.due(start + microseconds(1)));
  EXPECT_TRUE(sut.due(start + microseconds(2)));
  EXPECT_EQ(longest_gap(sut, start, start + microseconds(32), Nanoseconds(100)), microseconds(2));
}

TEST(EchoPollCadence, ThinsOutToASixteenthOfTheProbesAge)
{
  EchoPollCadence sut;
  sut.restart(start);
  sut.probe_sent(start);
  sut.looked(start + microseconds(400));
  EXPECT_FALSE(sut.due(start + microseconds(420))); // age 420 us: every 26.25 us
  EXPECT_TRUE(sut.due(start + microseconds(427)));
}

TEST(EchoPollCadence, NeverFurtherApartThanTheCap)
{
  EchoPollCadence sut;
  sut.restart(start);
  sut.probe_sent(start);
  const Nanoseconds gap = longest_gap(sut, start, start + microseconds(100'000), Nanoseconds(250));
  EXPECT_LE(gap, EchoPollCadence::max_interval + Nanoseconds(250));
  EXPECT_GE(gap, EchoPollCadence::max_interval);
}

TEST(EchoPollCadence, AnEchoIsHandedOverWithinASixteenthOfItsRoundTrip)
{
  EchoPollCadence sut;
  sut.restart(start);
  sut.probe_sent(start);
  const Nanoseconds step(100); // one send
  Clock::time_point last = start;
  for (Clock::time_point now = start; now <= start + microseconds(5'000); now += step) {
    if (!sut.due(now))
      continue;
    // An echo that arrived just after the previous look waited this long; its round trip, as
    // measured at this look, is at least the newest probe's age.
    const Nanoseconds delay = now - last;
    const Nanoseconds round_trip = now - start;
    const Nanoseconds bound =
        std::max<Nanoseconds>(EchoPollCadence::min_interval,
                              std::min<Nanoseconds>(round_trip / EchoPollCadence::age_divisor,
                                                    EchoPollCadence::max_interval));
    EXPECT_LE(delay, bound + step) << "at " << round_trip.count() << " ns";
    sut.looked(now);
    last = now;
  }
}

TEST(EchoPollCadence, ANewProbeBringsTheLooksCloseAgain)
{
  EchoPollCadence sut;
  sut.restart(start);
  sut.probe_sent(start);
  const auto later = start + microseconds(10'000);
  sut.looked(later);
  sut.probe_sent(later);
  EXPECT_TRUE(sut.due(later + microseconds(2)));
}

} // namespace
