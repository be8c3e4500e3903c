// What --reliability and --history mean on the fastdds transport: DDS's own QoS natively, as on
// the dds transport (one mapping for both, common/dds_qos_choice.hpp, so that a cross-vendor run
// given the same options gets the same QoS on each side), and the requests it refuses (exit
// status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no participant is
// created. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// Keep-all, where the dds transport keeps keep-last:16 (transport-fastdds.md says why).
TEST_F(QosMappingTest, FastDdsDefaultsToReliableKeepAllOnEveryProcess)
{
  const EffectiveQos qos = effective({"--fastdds", "qos_test"});
  EXPECT_EQ(qos.reliability, Reliability::reliable);
  EXPECT_EQ(qos.history, HistoryKind::keep_all);
  EXPECT_EQ(qos.depth, 5'556u); // -q's 1,000,000 B / 180 B per message, rounded up
  EXPECT_EQ(stated({"--fastdds", "qos_test"}).set_by, QosSetBy::every_process);
}

TEST_F(QosMappingTest, FastDdsTakesEveryCombinationNatively)
{
  const EffectiveQos keep_last = effective(
      {"--fastdds", "qos_test", "--reliability", "best-effort", "--history", "keep-last:4"});
  EXPECT_EQ(keep_last.reliability, Reliability::best_effort);
  EXPECT_EQ(keep_last.history, HistoryKind::keep_last);
  EXPECT_EQ(keep_last.depth, 4u);
  EXPECT_EQ(effective({"--fastdds", "qos_test", "--fastdds-reliability", "best-effort",
                       "--fastdds-history", "keep-last:4"})
                .reliability,
            Reliability::best_effort);

  const EffectiveQos keep_all =
      effective({"--fastdds", "qos_test", "--reliability", "reliable", "--history", "keep-all"});
  EXPECT_EQ(keep_all.history, HistoryKind::keep_all);
  EXPECT_EQ(keep_all.depth, 5'556u); // -q's 1,000,000 B / 180 B per message, rounded up
}

TEST_F(QosMappingTest, FastDdsStatesWhatDdsStatesForTheSameRequest)
{
  for (const char* history : {"keep-last:3", "keep-all"}) {
    const EffectiveQos fast =
        effective({"--fastdds", "qos_test", "--reliability", "best-effort", "--history", history});
    const EffectiveQos cyclone =
        effective({"--dds", "qos_test", "--reliability", "best-effort", "--history", history});
    EXPECT_EQ(fast.reliability, cyclone.reliability) << history;
    EXPECT_EQ(fast.history, cyclone.history) << history;
    EXPECT_EQ(fast.depth, cyclone.depth) << history;
  }
}

TEST_F(QosMappingTest, FastDdsRefusesWhatContradictsItsOwnOptions)
{
  EXPECT_EQ(refusal({"--fastdds", "qos_test", "--fastdds-reliability", "reliable", "--reliability",
                     "best-effort"}),
            "--reliability best-effort contradicts --fastdds-reliability reliable: give one of "
            "them");
  EXPECT_EQ(refusal({"--fastdds", "qos_test", "--fastdds-history", "keep-last:8", "--history",
                     "keep-last:9"}),
            "--history keep-last:9 contradicts --fastdds-history keep-last:8: give one of them");
  EXPECT_TRUE(starts_with(refusal({"--fastdds", "qos_test", "--history", "keep-last:1000001"}),
                          "--history keep-last:1000001 is not available on fastdds: "));
}

} // namespace
} // namespace netprof
