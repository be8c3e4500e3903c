// What --reliability and --history mean on the mq transport: the QoS it states, and the requests it
// refuses (exit status 2) with why. Pure logic on the command line (support/qos_mapping.hpp): no
// socket is opened, no segment or queue made. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

TEST_F(QosMappingTest, MqIsReliableKeepAllAsDeepAsItsQueue)
{
  const EffectiveQos sut = effective({"--mq", "qos-test", "--mq-depth", "5"});

  EXPECT_EQ(sut.reliability, Reliability::reliable);
  EXPECT_EQ(sut.history, HistoryKind::keep_all);
  EXPECT_EQ(sut.depth, 5u);
  EXPECT_TRUE(starts_with(refusal({"--mq", "qos-test", "--reliability", "best-effort"}),
                          "--reliability best-effort is not available on mq: a POSIX message "
                          "queue never drops"));
}

} // namespace
} // namespace netprof
