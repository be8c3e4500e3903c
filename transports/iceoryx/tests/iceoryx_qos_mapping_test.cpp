// What --reliability and --history mean on the iceoryx transport: the QoS it states, and the
// requests it refuses (exit status 2) with why. Pure logic on the command line
// (support/qos_mapping.hpp): no socket is opened, no segment or queue made. Built into unit_cli
// with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// Reliable blocks the publisher, keep-last:N is the queue.

TEST_F(QosMappingTest, IceoryxDefaultsToDiscardingTheOldest)
{
  EXPECT_EQ(stated({"--iceoryx", "qos-test"}),
            (StatedQos{Reliability::best_effort, HistoryKind::keep_last, QosSetBy::every_process,
                       256u})); // -q's 5,556 messages, capped at the most iceoryx queues
}

TEST_F(QosMappingTest, IceoryxReliableBlocksAndKeepLastSetsTheQueue)
{
  for (const EffectiveQos& sut : {effective({"--iceoryx", "qos-test", "--reliability", "reliable"}),
                                  effective({"--iceoryx", "qos-test", "--iox-queue-full", "block"}),
                                  effective({"--iceoryx", "qos-test", "--history", "keep-all"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
  }
  EXPECT_EQ(effective({"--iceoryx", "qos-test", "--history", "keep-last:8"}).depth, 8u);
}

TEST_F(QosMappingTest, IceoryxRefusesWhatContradictsOrExceedsItsQueue)
{
  EXPECT_EQ(refusal({"--iceoryx", "qos-test", "--iox-queue-full", "discard", "--reliability",
                     "reliable"}),
            "--reliability reliable contradicts --iox-queue-full discard: give one of them");
  EXPECT_TRUE(starts_with(refusal({"--iceoryx", "qos-test", "--history", "keep-last:257"}),
                          "--history keep-last:257 is not available on iceoryx: a subscriber's "
                          "queue holds at most 256 messages"));
}

} // namespace
} // namespace netprof
