#include <netprof/send_accounting.hpp>

#include <gtest/gtest.h>

#include <string>

// The publisher's send accounting: every attempt is sent, pushed back or failed, and every
// refusal has one cause (docs/reading-the-report.md, "Send attempts").

namespace netprof {
namespace {

TEST(SendAccounting, EveryAttemptIsSentPushedBackOrFailed)
{
  SendAccounting sut;
  sut.count(SendResult::sent, SendCause::unspecified);
  sut.count(SendResult::back_pressured, SendCause::ring_full);
  sut.count(SendResult::back_pressured, SendCause::ring_full);
  sut.count(SendResult::failed, SendCause::error);
  EXPECT_EQ(sut.attempted, 4u);
  EXPECT_EQ(sut.sent, 1u);
  EXPECT_EQ(sut.pushed_back, 2u);
  EXPECT_EQ(sut.failed, 1u);
  EXPECT_EQ(sut.attempted, sut.sent + sut.refused());
}

TEST(SendAccounting, RefusalsAreCountedByCauseAndSendsAreNot)
{
  SendAccounting sut;
  sut.count(SendResult::sent, SendCause::would_block); // a stale cause beside a send: ignored
  sut.count(SendResult::back_pressured, SendCause::would_block);
  sut.count(SendResult::back_pressured, SendCause::no_buffer_space);
  sut.count(SendResult::back_pressured, SendCause::high_water_mark);
  EXPECT_EQ(sut.of(SendCause::would_block), 1u);
  EXPECT_EQ(sut.of(SendCause::no_buffer_space), 1u);
  EXPECT_EQ(sut.of(SendCause::high_water_mark), 1u);
  std::uint64_t total = 0;
  for (const std::uint64_t count : sut.by_cause)
    total += count;
  EXPECT_EQ(total, sut.refused());
}

TEST(SendAccounting, ACauseOutOfRangeCountsAsUnspecified)
{
  SendAccounting sut;
  sut.count(SendResult::back_pressured, static_cast<SendCause>(200));
  EXPECT_EQ(sut.of(SendCause::unspecified), 1u);
}

TEST(SendAccounting, SinceGivesTheCountsBetweenTwoSnapshots)
{
  SendAccounting sut;
  sut.count(SendResult::sent, SendCause::unspecified);
  const SendAccounting earlier = sut;
  sut.count(SendResult::sent, SendCause::unspecified);
  sut.count(SendResult::back_pressured, SendCause::queue_full);
  const SendAccounting delta = sut.since(earlier);
  EXPECT_EQ(delta.attempted, 2u);
  EXPECT_EQ(delta.sent, 1u);
  EXPECT_EQ(delta.pushed_back, 1u);
  EXPECT_EQ(delta.of(SendCause::queue_full), 1u);
}

TEST(SendCauseNames, AreTheJsonKeys)
{
  EXPECT_EQ(std::string(to_string(SendCause::would_block)), "eagain");
  EXPECT_EQ(std::string(to_string(SendCause::no_buffer_space)), "enobufs");
  EXPECT_EQ(std::string(to_string(SendCause::high_water_mark)), "zmq_hwm");
  EXPECT_EQ(std::string(to_string(SendCause::ring_full)), "ring_full");
  EXPECT_EQ(std::string(to_string(SendCause::count_)), "unknown");
}

} // namespace
} // namespace netprof
