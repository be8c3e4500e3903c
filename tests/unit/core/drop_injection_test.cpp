#include "core/measuring/drop_injection.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using netprof::DropInjection;

int dropped_of(const DropInjection& sut, std::uint64_t messages)
{
  int dropped = 0;
  for (std::uint64_t sequence = 0; sequence < messages; ++sequence)
    dropped += sut.drops(sequence) ? 1 : 0;
  return dropped;
}

TEST(DropInjection, NoRateDropsNothingAndAllOfItDropsEverything)
{
  DropInjection none(0.0, 1);
  DropInjection all(100.0, 1);

  EXPECT_EQ(dropped_of(none, 10'000), 0);
  EXPECT_EQ(dropped_of(all, 10'000), 10'000);
}

TEST(DropInjection, DropsTheShareAsked)
{
  for (const double percent : {0.1, 10.0, 50.0, 99.0}) {
    DropInjection sut(percent, 42);
    const double share = dropped_of(sut, 200'000) / 2'000.0;
    EXPECT_NEAR(share, percent, 0.3) << percent;
  }
}

TEST(DropInjection, TheSameSeedDropsTheSameMessagesInAnyOrderAndAnotherSeedOthers)
{
  const DropInjection first(30.0, 9);
  const DropInjection again(30.0, 9);
  const DropInjection other(30.0, 10);
  std::vector<bool> asked_backwards(1'000);
  for (std::uint64_t sequence = 1'000; sequence-- > 0;)
    asked_backwards[sequence] = again.drops(sequence);
  int differs = 0;
  for (std::uint64_t sequence = 0; sequence < 1'000; ++sequence) {
    EXPECT_EQ(first.drops(sequence), asked_backwards[sequence]) << sequence;
    differs += first.drops(sequence) != other.drops(sequence) ? 1 : 0;
  }

  EXPECT_GT(differs, 100);
}

} // namespace
