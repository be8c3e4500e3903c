// What --reliability and --history mean on the redis transport: best-effort, keep-last with no
// depth (the server's bound is in bytes), and the requests it refuses (exit status 2) with why.
// Pure logic on the command line (support/qos_mapping.hpp): no server is reached. Built into
// unit_cli with every transport's.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

void expect_best_effort(const EffectiveQos& qos)
{
  EXPECT_EQ(qos.reliability, Reliability::best_effort);
  EXPECT_EQ(qos.history, HistoryKind::keep_last);
  EXPECT_FALSE(qos.depth.has_value());
  EXPECT_EQ(qos.set_by, QosSetBy::transport);
  EXPECT_TRUE(starts_with(qos.meaning, "Redis pub/sub (at most once)")) << qos.meaning;
}

void expect_refused_as_at_most_once(const std::string& why, const std::string& asked)
{
  EXPECT_TRUE(starts_with(why, asked + " is not available on redis: ")) << why;
  EXPECT_NE(why.find("at most once"), std::string::npos) << why;
}

TEST_F(QosMappingTest, RedisIsBestEffortWhateverIsAsked)
{
  expect_best_effort(effective({"--redis", "127.0.0.1:6379"}));
  expect_best_effort(effective({"--redis", "127.0.0.1:6379", "--reliability", "best-effort"}));
  expect_best_effort(effective({"--redis", "127.0.0.1:6379", "--history", "keep-last"}));
}

TEST_F(QosMappingTest, RedisRefusesReliabilityAndHistoryItCannotKeep)
{
  expect_refused_as_at_most_once(
      refusal({"--redis", "127.0.0.1:6379", "--reliability", "reliable"}),
      "--reliability reliable");
  expect_refused_as_at_most_once(refusal({"--redis", "127.0.0.1:6379", "--history", "keep-all"}),
                                 "--history keep-all");
  expect_refused_as_at_most_once(refusal({"--redis", "127.0.0.1:6379", "--history", "keep-last:8"}),
                                 "--history keep-last:8");
}

TEST_F(QosMappingTest, RedisRefusesAGlobChannelPrefixAndABadServer)
{
  for (const std::string prefix : {"runs*", "run?", "run[12]", "a\\b"}) {
    const std::string why = refusal({"--redis", "127.0.0.1:6379", "--redis-channel", prefix});
    EXPECT_EQ(why, "bad --redis-channel value '" + prefix +
                       "': Redis's glob characters * ? [ ] and \\ cannot be in a channel prefix "
                       "(the publisher PSUBSCRIBEs to PREFIX:echo:*, and a pattern subscriber of "
                       "another run could take this run's channels for its own)");
  }
  EXPECT_TRUE(starts_with(refusal({"--redis", "127.0.0.1:0"}), "bad --redis value '127.0.0.1:0'"));
  EXPECT_TRUE(starts_with(refusal({"--redis", "6379"}), "bad --redis value '6379'"));
  EXPECT_TRUE(starts_with(refusal({"-i", "1", "--redis"}), "--redis needs the server's HOST:PORT"));
  EXPECT_EQ(refusal({"--redis", "127.0.0.1:6379", "--redis-channel", "lab:run-7"}), "(accepted)");
}

} // namespace
} // namespace netprof
