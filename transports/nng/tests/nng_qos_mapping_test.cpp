// What --reliability and --history mean on the nng transport: the QoS it states, and the requests
// it refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// The pattern decides.

TEST_F(QosMappingTest, NngPubSubIsBestEffortPushPullAndPairAreReliable)
{
  EXPECT_EQ(stated({"--nng", "tcp://127.0.0.1:5555"}),
            (StatedQos{Reliability::best_effort, HistoryKind::keep_last, QosSetBy::every_process,
                       5'556u})); // 1,000,000 B / 180 B per message, rounded up
  for (const char* pattern : {"pushpull", "pair"}) {
    const EffectiveQos sut = effective(
        {"--nng", "tcp://127.0.0.1:5555", "--nng-pattern", pattern, "--reliability", "reliable"});
    EXPECT_EQ(sut.reliability, Reliability::reliable) << pattern;
    EXPECT_EQ(sut.history, HistoryKind::keep_all) << pattern;
  }
}

TEST_F(QosMappingTest, NngRefusesWhatItsPatternDoesNotDo)
{
  EXPECT_EQ(refusal({"--nng", "tcp://127.0.0.1:5555", "--reliability", "reliable"}),
            "--reliability reliable is not what --nng-pattern pubsub does: pub0 drops at a full "
            "queue (best-effort, keep-last); give --nng-pattern pushpull or pair for reliable");
  EXPECT_TRUE(starts_with(
      refusal({"--nng", "tcp://127.0.0.1:5555", "--nng-pattern", "pair", "--history", "keep-last"}),
      "--history keep-last is not what --nng-pattern pair does: "));
  EXPECT_TRUE(starts_with(refusal({"--nng", "tcp://127.0.0.1:5555", "--history", "keep-last:8"}),
                          "--history keep-last:8 is not available on nng: "));
}

} // namespace
} // namespace netprof
