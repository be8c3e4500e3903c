// --history's spelling, the request's text, and the rule shared by the transports whose
// reliability and history are one choice.

#include <netprof/errors.hpp>
#include <netprof/qos.hpp>

#include <gtest/gtest.h>

#include <string>

namespace netprof {
namespace {

std::string history_refusal(const std::string& text)
{
  try {
    parse_history(text);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(parsed)";
}

TEST(ParseHistory, KeepLastWithoutADepth)
{
  EXPECT_EQ(parse_history("keep-last"), (History{HistoryKind::keep_last, std::nullopt}));
}

TEST(ParseHistory, KeepLastWithADepth)
{
  EXPECT_EQ(parse_history("keep-last:8"), (History{HistoryKind::keep_last, 8}));
  EXPECT_EQ(parse_history("keep-last:2147483647"),
            (History{HistoryKind::keep_last, max_history_depth}));
}

TEST(ParseHistory, KeepAll)
{
  EXPECT_EQ(parse_history("keep-all"), (History{HistoryKind::keep_all, std::nullopt}));
}

TEST(ParseHistory, RefusesOtherSpellingsWithTheExpectedForms)
{
  const std::string expected =
      ": expected keep-last, keep-last:N (N messages, 1 to 2147483647) or keep-all";
  for (const std::string bad : {"", "keep_last", "KEEP-LAST", "keep-last ", "keeplast", "last",
                                "keep-last:", "keep-last:x", "keep-last:-1", "keep-last:+8",
                                "keep-last:8x", "keep-last: 8", "keep-last=8", "keep-all-8"}) {
    EXPECT_EQ(history_refusal(bad), "invalid value '" + bad + "' for --history" + expected) << bad;
  }
}

TEST(ParseHistory, RefusesADepthOfZero)
{
  EXPECT_EQ(history_refusal("keep-last:0"),
            "invalid value 'keep-last:0' for --history: a depth of 0 "
            "keeps nothing: give keep-last:N with N from 1 to "
            "2147483647");
}

TEST(ParseHistory, RefusesAHugeDepth)
{
  const std::string too_large = ": depth too large (at most 2147483647 messages)";
  EXPECT_EQ(history_refusal("keep-last:2147483648"),
            "invalid value 'keep-last:2147483648' for --history" + too_large);
  EXPECT_EQ(history_refusal("keep-last:99999999999999999999999"),
            "invalid value 'keep-last:99999999999999999999999' for --history" + too_large);
}

TEST(ParseHistory, RefusesADepthOnKeepAll)
{
  EXPECT_EQ(history_refusal("keep-all:8"),
            "invalid value 'keep-all:8' for --history: keep-all takes "
            "no depth (it keeps every message): give keep-all");
}

TEST(QosText, NamesTheRequestAsTheOptionsWouldBeWritten)
{
  EXPECT_EQ(to_string(QosRequest{}), "none");
  EXPECT_EQ(to_string(QosRequest{Reliability::reliable, std::nullopt}), "--reliability reliable");
  EXPECT_EQ(to_string(QosRequest{std::nullopt, History{HistoryKind::keep_last, 8}}),
            "--history keep-last:8");
  EXPECT_EQ(to_string(QosRequest{Reliability::best_effort, History{HistoryKind::keep_all, {}}}),
            "--reliability best-effort --history keep-all");
}

TEST(PublisherWaits, NothingAskedLeavesItToTheTransport)
{
  EXPECT_EQ(qos::publisher_waits(QosRequest{}, "shm"), std::nullopt);
}

TEST(PublisherWaits, ReliableAndKeepAllWaitBestEffortAndKeepLastDoNot)
{
  const History keep_all{HistoryKind::keep_all, {}};
  const History keep_last{HistoryKind::keep_last, {}};
  EXPECT_EQ(qos::publisher_waits({Reliability::reliable, std::nullopt}, "shm"), true);
  EXPECT_EQ(qos::publisher_waits({std::nullopt, keep_all}, "shm"), true);
  EXPECT_EQ(qos::publisher_waits({Reliability::reliable, keep_all}, "shm"), true);
  EXPECT_EQ(qos::publisher_waits({Reliability::best_effort, std::nullopt}, "shm"), false);
  EXPECT_EQ(qos::publisher_waits({std::nullopt, keep_last}, "shm"), false);
  EXPECT_EQ(qos::publisher_waits({Reliability::best_effort, keep_last}, "shm"), false);
}

TEST(PublisherWaits, RefusesHalvesThatContradict)
{
  try {
    qos::publisher_waits({Reliability::reliable, History{HistoryKind::keep_last, 4}}, "zmq");
    FAIL() << "accepted reliable with keep-last";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--reliability reliable --history keep-last:4 contradict each other on zmq: its "
              "publisher either waits for a reader that lags (reliable, keep-all) or lets it "
              "lose messages (best-effort, keep-last)");
  }
  EXPECT_THROW(
      qos::publisher_waits({Reliability::best_effort, History{HistoryKind::keep_all, {}}}, "shm"),
      UsageError);
}

TEST(AlwaysReliable, StatesReliableKeepAllSetByTheTransport)
{
  const EffectiveQos sut = qos::always_reliable({}, "tcp", "why", "what it means");

  EXPECT_EQ(sut.reliability, Reliability::reliable);
  EXPECT_EQ(sut.history, HistoryKind::keep_all);
  EXPECT_EQ(sut.set_by, QosSetBy::transport);
  EXPECT_EQ(sut.meaning, "what it means");
  EXPECT_EQ(sut.depth, std::nullopt);
}

TEST(AlwaysReliable, RefusesBestEffortAndKeepLastWithWhy)
{
  try {
    qos::always_reliable({Reliability::best_effort, std::nullopt}, "tcp", "TCP never drops", "");
    FAIL() << "accepted best-effort";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--reliability best-effort is not available on tcp: TCP never drops");
  }
  EXPECT_THROW(
      qos::always_reliable({std::nullopt, History{HistoryKind::keep_last, 2}}, "tcp", "why", ""),
      UsageError);
  EXPECT_NO_THROW(qos::always_reliable({Reliability::reliable, History{HistoryKind::keep_all, {}}},
                                       "tcp", "why", ""));
}

} // namespace
} // namespace netprof
