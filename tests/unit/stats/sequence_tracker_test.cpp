#include <netprof/sequence_tracker.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace netprof {
namespace {

TEST(SequenceTrackerTest, InOrderArrivalsAreAllUniqueWithNoAnomalies)
{
  SequenceTracker sut;
  for (std::uint64_t s = 0; s < 1000; ++s)
    sut.observe(s);
  EXPECT_EQ(sut.received(), 1000u);
  EXPECT_EQ(sut.unique(), 1000u);
  EXPECT_EQ(sut.duplicates(), 0u);
  EXPECT_EQ(sut.out_of_order(), 0u);
  EXPECT_EQ(sut.gaps(), 0u);
  EXPECT_EQ(sut.lost(1000), 0u);
}

TEST(SequenceTrackerTest, ForwardJumpCountsOneGap)
{
  SequenceTracker sut;
  for (const std::uint64_t s : {0, 1, 2, 7, 8})
    sut.observe(s);
  EXPECT_EQ(sut.gaps(), 1u);
  EXPECT_EQ(sut.unique(), 5u);
  EXPECT_EQ(sut.out_of_order(), 0u);
  EXPECT_EQ(sut.lost(9), 4u);
}

TEST(SequenceTrackerTest, FirstSequenceIsTheBaselineNotAGap)
{
  SequenceTracker sut;
  sut.observe(500);
  sut.observe(501);
  EXPECT_EQ(sut.gaps(), 0u);
  EXPECT_EQ(sut.unique(), 2u);
}

TEST(SequenceTrackerTest, RepeatedSequencesCountAsDuplicates)
{
  SequenceTracker sut;
  for (const std::uint64_t s : {0, 1, 1, 2, 0, 2, 2})
    sut.observe(s);
  EXPECT_EQ(sut.received(), 7u);
  EXPECT_EQ(sut.unique(), 3u);
  EXPECT_EQ(sut.duplicates(), 4u);
  EXPECT_EQ(sut.out_of_order(), 0u);
}

TEST(SequenceTrackerTest, LateArrivalWithinWindowIsOutOfOrderThenDuplicate)
{
  SequenceTracker sut(64);
  for (const std::uint64_t s : {0, 1, 3, 4, 2, 2})
    sut.observe(s);
  EXPECT_EQ(sut.gaps(), 1u);
  EXPECT_EQ(sut.out_of_order(), 1u);
  EXPECT_EQ(sut.duplicates(), 1u);
  EXPECT_EQ(sut.unique(), 5u);
  EXPECT_EQ(sut.lost(5), 0u);
}

TEST(SequenceTrackerTest, ArrivalOlderThanWindowIsOutOfOrderWithoutDuplicateCheck)
{
  SequenceTracker sut(64);
  for (std::uint64_t s = 0; s < 200; ++s)
    sut.observe(s);
  sut.observe(10); // seen long ago, but too old to remember
  EXPECT_EQ(sut.out_of_order(), 1u);
  EXPECT_EQ(sut.duplicates(), 0u);
  EXPECT_EQ(sut.unique(), 201u);
}

TEST(SequenceTrackerTest, SkippedSequenceArrivingAfterWindowSlidIsNotADuplicate)
{
  // Window 8: sequences 8..11 reuse the bits of 0..3, which were seen. The jump must clear
  // them, or the late 9 would be mistaken for a duplicate.
  SequenceTracker sut(8);
  for (std::uint64_t s = 0; s < 8; ++s)
    sut.observe(s);
  sut.observe(12);
  sut.observe(9);
  EXPECT_EQ(sut.duplicates(), 0u);
  EXPECT_EQ(sut.out_of_order(), 1u);
  EXPECT_EQ(sut.unique(), 10u);
}

TEST(SequenceTrackerTest, JumpThatWrapsTheBitmapClearsBothEnds)
{
  SequenceTracker sut(128);
  for (std::uint64_t s = 0; s < 250; ++s)
    sut.observe(s);
  sut.observe(300); // forgets 250..299: positions 122..127 and 0..43
  for (std::uint64_t s = 250; s < 300; ++s)
    sut.observe(s);
  EXPECT_EQ(sut.duplicates(), 0u);
  EXPECT_EQ(sut.out_of_order(), 50u);
  for (std::uint64_t s = 250; s <= 300; ++s)
    sut.observe(s);
  EXPECT_EQ(sut.duplicates(), 51u);
}

TEST(SequenceTrackerTest, HugeForwardJumpForgetsTheWholeWindow)
{
  SequenceTracker sut(64);
  for (std::uint64_t s = 0; s < 64; ++s)
    sut.observe(s);
  const std::uint64_t far = std::uint64_t{1} << 40;
  sut.observe(far);
  EXPECT_EQ(sut.gaps(), 1u);
  // Within the window of the new highest, never seen, even though their bits were reused.
  sut.observe(far - 1);
  sut.observe(far - 64 + 1);
  EXPECT_EQ(sut.duplicates(), 0u);
  // Far behind the window: counted as a late unique arrival.
  sut.observe(5);
  EXPECT_EQ(sut.out_of_order(), 3u);
  EXPECT_EQ(sut.unique(), 68u);
}

TEST(SequenceTrackerTest, WindowIsRoundedUpToAPowerOfTwo)
{
  SequenceTracker sut(100); // becomes 128
  for (std::uint64_t s = 0; s <= 127; ++s)
    sut.observe(s);
  sut.observe(0); // 127 behind: still inside a 128 window
  EXPECT_EQ(sut.duplicates(), 1u);
  EXPECT_EQ(sut.out_of_order(), 0u);
}

TEST(SequenceTrackerTest, AbsurdWindowIsRejected)
{
  EXPECT_THROW(SequenceTracker((std::uint64_t{1} << 40) + 1), std::invalid_argument);
}

TEST(SequenceTrackerTest, LostIsSentMinusUniqueAndNeverNegative)
{
  SequenceTracker sut;
  for (const std::uint64_t s : {0, 2, 2, 4})
    sut.observe(s);
  EXPECT_EQ(sut.lost(5), 2u);
  EXPECT_EQ(sut.lost(3), 0u);
  EXPECT_EQ(sut.lost(0), 0u);
}

} // namespace
} // namespace netprof
