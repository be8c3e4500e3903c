// What --reliability and --history mean on the shm transport: the QoS it states, and the requests
// it refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// Reliable is keep-all, best-effort keep-last; the publisher's decides.

TEST_F(QosMappingTest, ShmDefaultsToKeepLastWithTheRingsMessagesAsDepth)
{
  // -q 1000000 makes a 1 MiB ring; a 180 B message takes a 192 B record.
  EXPECT_EQ(stated({"--shm", "qos-test"}),
            (StatedQos{Reliability::best_effort, HistoryKind::keep_last, QosSetBy::publisher,
                       1'048'576u / 192u}));
}

TEST_F(QosMappingTest, ShmReliableIsKeepAll)
{
  for (const EffectiveQos& sut : {effective({"--shm", "qos-test", "--reliability", "reliable"}),
                                  effective({"--shm", "qos-test", "--history", "keep-all"}),
                                  effective({"--shm", "qos-test", "--shm-history", "keep-all"}),
                                  effective({"--shm", "qos-test", "--shm-history", "keep-all",
                                             "--reliability", "reliable"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
  }
}

TEST_F(QosMappingTest, ShmRefusesWhatContradictsShmHistory)
{
  EXPECT_EQ(
      refusal({"--shm", "qos-test", "--shm-history", "keep-last", "--reliability", "reliable"}),
      "--reliability reliable contradicts --shm-history keep-last: on shm reliable is "
      "keep-all; give one or the other");
  EXPECT_EQ(refusal({"--shm", "qos-test", "--shm-history", "keep-all", "--history", "keep-last"}),
            "--history keep-last contradicts --shm-history keep-all: on shm best-effort is "
            "keep-last; give one or the other");
}

TEST_F(QosMappingTest, ShmRefusesADepthAndHalvesThatContradict)
{
  EXPECT_TRUE(starts_with(refusal({"--shm", "qos-test", "--history", "keep-last:8"}),
                          "--history keep-last:8 is not available on shm: its ring is sized in "
                          "bytes by -q"));
  EXPECT_TRUE(starts_with(
      refusal({"--shm", "qos-test", "--reliability", "reliable", "--history", "keep-last"}),
      "--reliability reliable --history keep-last contradict each other on "
      "shm"));
}

TEST_F(QosMappingTest, ShmSubscriberSaysThePublishersSettingDecides)
{
  const EffectiveQos sut = effective({"-i", "1", "--shm", "qos-test", "--reliability", "reliable"});

  EXPECT_EQ(sut.set_by, QosSetBy::publisher);
  EXPECT_NE(sut.meaning.find("the publisher's setting decides"), std::string::npos);
}

} // namespace
} // namespace netprof
