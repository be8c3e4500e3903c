// What --reliability and --history mean on the zmq transport: the QoS it states, and the requests
// it refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <cstdint>
#include <string>

namespace netprof {
namespace {

// Reliable is --zmq-nodrop, keep-last:N the high-water mark.

// The high-water mark of -q's default: 1,000,000 B / 180 B per message, rounded up.
constexpr std::uint64_t default_high_water_mark = 5'556;

TEST_F(QosMappingTest, ZmqDefaultsToBestEffortAtTheHighWaterMarkOfMinusQ)
{
  EXPECT_EQ(stated({"--zmq", "tcp://127.0.0.1:5555"}),
            (StatedQos{Reliability::best_effort, HistoryKind::keep_last, QosSetBy::publisher,
                       default_high_water_mark}));
}

TEST_F(QosMappingTest, ZmqReliableIsNoDrop)
{
  for (const EffectiveQos& sut :
       {effective({"--zmq", "tcp://127.0.0.1:5555", "--reliability", "reliable"}),
        effective({"--zmq", "tcp://127.0.0.1:5555", "--zmq-nodrop"}),
        effective({"--zmq", "tcp://127.0.0.1:5555", "--history", "keep-all"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
    EXPECT_EQ(sut.depth, default_high_water_mark);
  }
}

TEST_F(QosMappingTest, ZmqKeepLastDepthIsTheHighWaterMark)
{
  const EffectiveQos sut = effective({"--zmq", "tcp://127.0.0.1:5555", "--history", "keep-last:8"});

  EXPECT_EQ(sut.reliability, Reliability::best_effort);
  EXPECT_EQ(sut.depth, 8u);
}

TEST_F(QosMappingTest, ZmqRefusesBestEffortWithNoDrop)
{
  EXPECT_EQ(
      refusal({"--zmq", "tcp://127.0.0.1:5555", "--zmq-nodrop", "--reliability", "best-effort"}),
      "--reliability best-effort contradicts --zmq-nodrop, which makes the publisher wait "
      "at the high-water mark (reliable, keep-all): give one or the other");
}

} // namespace
} // namespace netprof
