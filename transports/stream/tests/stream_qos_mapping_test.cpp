// What --reliability and --history mean on tcp and uds: the QoS it states, and the requests it
// refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

TEST_F(QosMappingTest, TcpAndUdsAreReliableAndKeepAll)
{
  for (const EffectiveQos& sut : {effective({"--tcp", "127.0.0.1:5555"}),
                                  effective({"--tcp", "127.0.0.1:5555", "--reliability", "reliable",
                                             "--history", "keep-all"}),
                                  effective({"--uds", "/tmp/netprof-qos-test.sock"})}) {
    EXPECT_EQ(stated(sut), (StatedQos{Reliability::reliable, HistoryKind::keep_all,
                                      QosSetBy::transport, std::nullopt}));
  }
}

TEST_F(QosMappingTest, TcpAndUdsRefuseBestEffortAndKeepLast)
{
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:5555", "--reliability", "best-effort"}),
            "--reliability best-effort is not available on tcp: a TCP connection never drops "
            "a message: a full connection pushes back on the publisher, which waits (it is "
            "reliable and keeps all)");
  EXPECT_TRUE(
      starts_with(refusal({"--uds", "/tmp/netprof-qos-test.sock", "--history", "keep-last:4"}),
                  "--history keep-last:4 is not available on uds: "));
}

} // namespace
} // namespace netprof
