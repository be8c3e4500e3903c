// What --reliability, --history and --mqtt-qos mean on the mqtt transport: the QoS it states, and
// the requests it refuses (exit status 2) with why. Pure logic on the command line
// (support/qos_mapping.hpp): no broker is reached. Built into unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

TEST_F(QosMappingTest, MqttIsQos0BestEffortUnlessAskedForReliable)
{
  const EffectiveQos plain = effective({"--mqtt", "127.0.0.1:1883"});
  EXPECT_EQ(plain.reliability, Reliability::best_effort);
  EXPECT_EQ(plain.history, HistoryKind::keep_last);
  EXPECT_EQ(plain.set_by, QosSetBy::every_process);
  EXPECT_TRUE(starts_with(plain.meaning, "MQTT QoS 0"));

  const EffectiveQos reliable =
      effective({"--mqtt", "127.0.0.1:1883", "--reliability", "reliable"});
  EXPECT_EQ(reliable.reliability, Reliability::reliable);
  EXPECT_EQ(reliable.history, HistoryKind::keep_all);
  EXPECT_TRUE(starts_with(reliable.meaning, "MQTT QoS 1"));
  EXPECT_TRUE(reliable.depth.has_value());

  const EffectiveQos exactly_once = effective({"--mqtt", "127.0.0.1:1883", "--mqtt-qos", "2"});
  EXPECT_EQ(exactly_once.reliability, Reliability::reliable);
  EXPECT_TRUE(starts_with(exactly_once.meaning, "MQTT QoS 2"));
}

TEST_F(QosMappingTest, MqttRefusesWhatHasNoMeaningThere)
{
  EXPECT_EQ(refusal({"--mqtt", "127.0.0.1:1883", "--mqtt-qos", "0", "--reliability", "reliable"}),
            "--reliability reliable contradicts --mqtt-qos 0: QoS 0 is best-effort, 1 and 2 "
            "reliable; give one of them");
  EXPECT_TRUE(starts_with(refusal({"--mqtt", "127.0.0.1:1883", "--history", "keep-last:8"}),
                          "--history keep-last:8 is not available on mqtt: "));
  EXPECT_NE(refusal({"--mqtt", "127.0.0.1:1883", "--reliability", "best-effort", "--history",
                     "keep-all"}),
            "(accepted)");
}

TEST_F(QosMappingTest, MqttRefusesAWildcardTopicPrefix)
{
  EXPECT_EQ(refusal({"--mqtt", "127.0.0.1:1883", "--mqtt-topic", "runs/#"}),
            "bad --mqtt-topic value 'runs/#': MQTT's wildcards + and # cannot be in a topic "
            "netprof publishes to");
  EXPECT_TRUE(starts_with(refusal({"--mqtt", "127.0.0.1:0"}), "bad --mqtt value '127.0.0.1:0'"));
  EXPECT_TRUE(starts_with(refusal({"-i", "1", "--mqtt"}), "--mqtt needs the broker's HOST:PORT"));
}

// The broker's address is read by the code redis shares (common/server_address).
TEST_F(QosMappingTest, MqttTakesABracketedIpv6BrokerAndRefusesAPortOutOfRange)
{
  EXPECT_EQ(refusal({"--mqtt", "[::1]:1883"}), "(accepted)");
  EXPECT_TRUE(starts_with(refusal({"--mqtt", "127.0.0.1:65536"}),
                          "bad --mqtt value '127.0.0.1:65536': expected HOST:PORT with a port of 1 "
                          "to 65535, e.g. --mqtt 127.0.0.1:1883"));
  EXPECT_TRUE(starts_with(refusal({"--mqtt", ":1883"}),
                          "bad --mqtt value ':1883': expected the broker's HOST:PORT"));
}

} // namespace
} // namespace netprof
