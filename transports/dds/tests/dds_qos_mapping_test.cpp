// What --reliability and --history mean on the dds transport: the QoS it states, and the requests
// it refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// DDS's own QoS, natively.

TEST_F(QosMappingTest, DdsDefaultsToReliableKeepLast16OnEveryProcess)
{
  EXPECT_EQ(stated({"--dds", "qos_test"}), (StatedQos{Reliability::reliable, HistoryKind::keep_last,
                                                      QosSetBy::every_process, 16u}));
}

TEST_F(QosMappingTest, DdsTakesEveryCombinationNatively)
{
  const EffectiveQos keep_last =
      effective({"--dds", "qos_test", "--reliability", "best-effort", "--history", "keep-last:4"});
  EXPECT_EQ(keep_last.reliability, Reliability::best_effort);
  EXPECT_EQ(keep_last.history, HistoryKind::keep_last);
  EXPECT_EQ(keep_last.depth, 4u);
  EXPECT_EQ(effective({"--dds", "qos_test", "--dds-reliability", "best-effort", "--dds-history",
                       "keep-last:4"})
                .reliability,
            Reliability::best_effort);

  const EffectiveQos keep_all =
      effective({"--dds", "qos_test", "--reliability", "reliable", "--history", "keep-all"});
  EXPECT_EQ(keep_all.history, HistoryKind::keep_all);
  EXPECT_EQ(keep_all.depth, 5'556u); // -q's 1,000,000 B / 180 B per message, rounded up
}

TEST_F(QosMappingTest, DdsRefusesWhatContradictsItsOwnOptions)
{
  EXPECT_EQ(refusal({"--dds", "qos_test", "--dds-reliability", "reliable", "--reliability",
                     "best-effort"}),
            "--reliability best-effort contradicts --dds-reliability reliable: give one of them");
  EXPECT_EQ(
      refusal({"--dds", "qos_test", "--dds-history", "keep-last:8", "--history", "keep-last:9"}),
      "--history keep-last:9 contradicts --dds-history keep-last:8: give one of them");
  EXPECT_TRUE(starts_with(refusal({"--dds", "qos_test", "--history", "keep-last:1000001"}),
                          "--history keep-last:1000001 is not available on dds: "));
}

} // namespace
} // namespace netprof
