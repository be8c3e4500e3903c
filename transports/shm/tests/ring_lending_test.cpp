// The ring's lending: records written in place (RingWriter::lend), lent again a lap later with
// their payload still in them. One thread throughout, over an ordinary array.

#include "test_ring.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using namespace netprof::shm; // the ring's types, the objects under test

// Lends, writes `bytes` (all of them, or only the first `header` when the record holds the rest)
// and commits; returns whether the record held the rest.
bool lend_and_commit(RingWriter& writer, const Bytes& bytes, std::size_t header = 8)
{
  const RingWriter::Lent lent = writer.lend(bytes.size());
  EXPECT_EQ(lent.result, WriteResult::written);
  EXPECT_EQ(lent.bytes.size(), bytes.size());
  const std::size_t written = lent.holds_payload ? header : bytes.size();
  std::memcpy(lent.bytes.data(), bytes.data(), written);
  writer.commit_lent();
  return lent.holds_payload;
}

// Index in front, the same 200 B behind: what the core's data messages look like.
Bytes data_message(std::uint64_t index)
{
  Bytes bytes = message(0, 208);
  std::memcpy(bytes.data(), &index, 8);
  return bytes;
}

TEST(RingLending, LentRecordsArriveIntactAndHoldTheirPayloadALapLater)
{
  for (const History history : {History::keep_last, History::keep_all}) {
    TestRing ring(4096, 1, history);
    RingWriter writer(*ring.view);
    Collector reader(*ring.view, 0);
    std::size_t holding = 0;
    for (std::uint64_t i = 0; i < 60; ++i) {
      holding += lend_and_commit(writer, data_message(i)) ? 1 : 0;
      ASSERT_EQ(reader.read(), 1u) << i;
      ASSERT_EQ(reader.got.back(), data_message(i)) << "record " << i;
    }
    // 256 B records: 16 a lap, so every record from the second lap on holds the payload.
    EXPECT_EQ(holding, 60u - 16u) << to_string(history);
  }
}

TEST(RingLending, ACopyOrAnAbandonedLoanMeansNothingIsHeldUntilALapAfterAFreshStart)
{
  TestRing ring(4096, 1, History::keep_last);
  RingWriter writer(*ring.view);
  for (std::uint64_t i = 0; i < 20; ++i)
    lend_and_commit(writer, data_message(i));
  ASSERT_EQ(writer.write(message(99, 208)), WriteResult::written); // a control message
  // The copy at 5120 broke the run; it starts afresh at the next lap's first record (8192, the
  // 31st message) and holds a lap later (12288, the 47th).
  for (std::uint64_t i = 20; i < 60; ++i)
    EXPECT_EQ(lend_and_commit(writer, data_message(i)), i >= 47) << i;

  TestRing other(4096, 1, History::keep_last);
  RingWriter abandoning(*other.view);
  for (std::uint64_t i = 0; i < 20; ++i)
    lend_and_commit(abandoning, data_message(i));
  const RingWriter::Lent lent = abandoning.lend(208);
  ASSERT_TRUE(lent.holds_payload);
  std::memset(lent.bytes.data(), 0xee, lent.bytes.size());
  abandoning.abandon_lent();
  EXPECT_FALSE(abandoning.lend(208).holds_payload) << "an abandoned loan still said it held";
}

TEST(RingLending, AFullKeepAllRingLendsNothingAndSaysSo)
{
  TestRing ring(1024, 1, History::keep_all);
  RingWriter writer(*ring.view);
  Collector reader(*ring.view, 0);
  for (std::uint64_t i = 0; i < 4; ++i)
    lend_and_commit(writer, data_message(i));
  const RingWriter::Lent refused = writer.lend(208);
  EXPECT_EQ(refused.result, WriteResult::full);
  EXPECT_TRUE(refused.bytes.empty());
  EXPECT_EQ(writer.lend(1024).result, WriteResult::too_large);

  ASSERT_EQ(reader.read(), 4u); // room again
  EXPECT_EQ(writer.lend(208).result, WriteResult::written);
}

} // namespace
