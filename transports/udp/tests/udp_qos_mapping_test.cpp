// What --reliability and --history mean on udp, multicast and broadcast: the QoS it states, and the
// requests it refuses (exit status 2) with why. Pure logic on the command line
// (support/qos_mapping.hpp): no socket is opened, no segment or queue made. Built into unit_cli
// with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

// Best-effort, nothing else.

TEST_F(QosMappingTest, UdpIsBestEffortWithoutHistory)
{
  const EffectiveQos sut = effective({"-u", "127.0.0.1:40000"});

  EXPECT_EQ(stated(sut), (StatedQos{Reliability::best_effort, HistoryKind::none,
                                    QosSetBy::transport, std::nullopt}));
  EXPECT_EQ(effective({"-u", "127.0.0.1:40000", "--reliability", "best-effort"}), sut);
}

TEST_F(QosMappingTest, UdpRefusesReliableAndAnyHistory)
{
  EXPECT_EQ(refusal({"-u", "127.0.0.1:40000", "--reliability", "reliable"}),
            "--reliability reliable is not available on udp: UDP has no retransmission: a "
            "datagram the network or a full receive buffer drops is lost (use tcp, or zmq with "
            "--reliability reliable)");
  EXPECT_TRUE(starts_with(refusal({"-u", "127.0.0.1:40000", "--history", "keep-last"}),
                          "--history keep-last is not available on udp: UDP keeps no history"));
  EXPECT_TRUE(starts_with(refusal({"-m", "239.255.0.1:4150", "--reliability", "reliable"}),
                          "--reliability reliable is not available on multicast: "));
  EXPECT_TRUE(starts_with(refusal({"-b", "127.255.255.255:4150", "--history", "keep-all"}),
                          "--history keep-all is not available on broadcast: "));
}

} // namespace
} // namespace netprof
