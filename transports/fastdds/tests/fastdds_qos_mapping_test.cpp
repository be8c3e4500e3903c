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

// Every combination natively, as the dds transport takes it (whose values
// dds_qos_mapping_test.cpp checks), asked by the generic options or by the transport's own.
TEST_F(QosMappingTest, FastDdsStatesWhatDdsStatesForTheSameRequest)
{
  for (const char* history : {"keep-last:3", "keep-last:4", "keep-all"}) {
    for (const char* reliability : {"reliable", "best-effort"}) {
      const StatedQos cyclone =
          stated({"--dds", "qos_test", "--reliability", reliability, "--history", history});
      EXPECT_EQ(
          stated({"--fastdds", "qos_test", "--reliability", reliability, "--history", history}),
          cyclone)
          << reliability << ", " << history;
      EXPECT_EQ(stated({"--fastdds", "qos_test", "--fastdds-reliability", reliability,
                        "--fastdds-history", history}),
                cyclone)
          << reliability << ", " << history << " as --fastdds-reliability, --fastdds-history";
    }
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
