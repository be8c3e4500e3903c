// What --reliability and --history mean on each built-in transport: the QoS it states, and
// the requests it refuses (exit status 2) with why. Pure logic on the command line: no socket
// is opened, no segment or queue made.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>
#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace netprof {
namespace {

class QosMappingTest : public ::testing::Test {
protected:
  QosMappingTest() { register_builtin_transports(m_registry); }

  ParsedCommandLine parse(std::initializer_list<std::string> arguments) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage)
      argv.push_back(argument.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);
  }

  // The QoS the chosen transport states for the endpoint this command line would open.
  EffectiveQos effective(std::initializer_list<std::string> arguments) const
  {
    const ParsedCommandLine parsed = parse(arguments);
    return parsed.plan.qos(parsed.config.role);
  }

  std::string refusal(std::initializer_list<std::string> arguments) const
  {
    try {
      parse(arguments);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(accepted)";
  }

  TransportRegistry m_registry;
};

bool starts_with(const std::string& text, const std::string& start)
{
  return text.starts_with(start);
}

// ---- udp, multicast, broadcast: best-effort, nothing else --------------------------------

TEST_F(QosMappingTest, UdpIsBestEffortWithoutHistory)
{
  const EffectiveQos sut = effective({"-u", "127.0.0.1:40000"});

  EXPECT_EQ(sut.reliability, Reliability::best_effort);
  EXPECT_EQ(sut.history, HistoryKind::none);
  EXPECT_EQ(sut.depth, std::nullopt);
  EXPECT_EQ(sut.set_by, QosSetBy::transport);
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

// ---- tcp, uds, mq: reliable and keep-all, nothing else ------------------------------------

TEST_F(QosMappingTest, TcpAndUdsAreReliableAndKeepAll)
{
  for (const EffectiveQos& sut : {effective({"--tcp", "127.0.0.1:5555"}),
                                  effective({"--tcp", "127.0.0.1:5555", "--reliability", "reliable",
                                             "--history", "keep-all"}),
                                  effective({"--uds", "/tmp/netprof-qos-test.sock"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
    EXPECT_EQ(sut.set_by, QosSetBy::transport);
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

// ---- shm: reliable is keep-all, best-effort keep-last; the publisher's decides -------------

TEST_F(QosMappingTest, ShmDefaultsToKeepLastWithTheRingsMessagesAsDepth)
{
  // -q 1000000 makes a 1 MiB ring; a 180 B message takes a 192 B record.
  const EffectiveQos sut = effective({"--shm", "qos-test"});

  EXPECT_EQ(sut.reliability, Reliability::best_effort);
  EXPECT_EQ(sut.history, HistoryKind::keep_last);
  EXPECT_EQ(sut.depth, 1'048'576u / 192u);
  EXPECT_EQ(sut.set_by, QosSetBy::publisher);
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

// ---- zmq: reliable is --zmq-nodrop, keep-last:N the high-water mark -----------------------

TEST_F(QosMappingTest, ZmqDefaultsToBestEffortAtTheHighWaterMarkOfMinusQ)
{
  const EffectiveQos sut = effective({"--zmq", "tcp://127.0.0.1:5555"});

  EXPECT_EQ(sut.reliability, Reliability::best_effort);
  EXPECT_EQ(sut.history, HistoryKind::keep_last);
  EXPECT_EQ(sut.depth, 5'556u); // 1,000,000 B / 180 B per message, rounded up
  EXPECT_EQ(sut.set_by, QosSetBy::publisher);
}

TEST_F(QosMappingTest, ZmqReliableIsNoDrop)
{
  for (const EffectiveQos& sut :
       {effective({"--zmq", "tcp://127.0.0.1:5555", "--reliability", "reliable"}),
        effective({"--zmq", "tcp://127.0.0.1:5555", "--zmq-nodrop"}),
        effective({"--zmq", "tcp://127.0.0.1:5555", "--history", "keep-all"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
    EXPECT_EQ(sut.depth, 5'556u);
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

// ---- nng: the pattern decides ----------------------------------------------------------------

TEST_F(QosMappingTest, NngPubSubIsBestEffortPushPullAndPairAreReliable)
{
  const EffectiveQos pubsub = effective({"--nng", "tcp://127.0.0.1:5555"});
  EXPECT_EQ(pubsub.reliability, Reliability::best_effort);
  EXPECT_EQ(pubsub.history, HistoryKind::keep_last);
  EXPECT_EQ(pubsub.set_by, QosSetBy::every_process);
  for (const char* pattern : {"pushpull", "pair"}) {
    const EffectiveQos sut = effective(
        {"--nng", "tcp://127.0.0.1:5555", "--nng-pattern", pattern, "--reliability", "reliable"});
    EXPECT_EQ(sut.reliability, Reliability::reliable) << pattern;
    EXPECT_EQ(sut.history, HistoryKind::keep_all) << pattern;
  }
}

TEST_F(QosMappingTest, NngRefusesWhatItsPatternDoesNotDo)
{
  EXPECT_EQ(refusal({"--nng", "tcp://127.0.0.1:5555", "--reliability", "reliable"}),
            "--reliability reliable is not what --nng-pattern pubsub does: pub0 drops at a full "
            "queue (best-effort, keep-last); give --nng-pattern pushpull or pair for reliable");
  EXPECT_TRUE(starts_with(
      refusal({"--nng", "tcp://127.0.0.1:5555", "--nng-pattern", "pair", "--history", "keep-last"}),
      "--history keep-last is not what --nng-pattern pair does: "));
  EXPECT_TRUE(starts_with(refusal({"--nng", "tcp://127.0.0.1:5555", "--history", "keep-last:8"}),
                          "--history keep-last:8 is not available on nng: "));
}

// ---- dds: DDS's own QoS, natively ------------------------------------------------------------

TEST_F(QosMappingTest, DdsDefaultsToReliableKeepLast16OnEveryProcess)
{
  const EffectiveQos sut = effective({"--dds", "qos_test"});

  EXPECT_EQ(sut.reliability, Reliability::reliable);
  EXPECT_EQ(sut.history, HistoryKind::keep_last);
  EXPECT_EQ(sut.depth, 16u);
  EXPECT_EQ(sut.set_by, QosSetBy::every_process);
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

// ---- iceoryx: reliable blocks the publisher, keep-last:N is the queue ------------------------

TEST_F(QosMappingTest, IceoryxDefaultsToDiscardingTheOldest)
{
  const EffectiveQos sut = effective({"--iceoryx", "qos-test"});

  EXPECT_EQ(sut.reliability, Reliability::best_effort);
  EXPECT_EQ(sut.history, HistoryKind::keep_last);
  EXPECT_EQ(sut.set_by, QosSetBy::every_process);
}

TEST_F(QosMappingTest, IceoryxReliableBlocksAndKeepLastSetsTheQueue)
{
  for (const EffectiveQos& sut : {effective({"--iceoryx", "qos-test", "--reliability", "reliable"}),
                                  effective({"--iceoryx", "qos-test", "--iox-queue-full", "block"}),
                                  effective({"--iceoryx", "qos-test", "--history", "keep-all"})}) {
    EXPECT_EQ(sut.reliability, Reliability::reliable);
    EXPECT_EQ(sut.history, HistoryKind::keep_all);
  }
  EXPECT_EQ(effective({"--iceoryx", "qos-test", "--history", "keep-last:8"}).depth, 8u);
}

TEST_F(QosMappingTest, IceoryxRefusesWhatContradictsOrExceedsItsQueue)
{
  EXPECT_EQ(refusal({"--iceoryx", "qos-test", "--iox-queue-full", "discard", "--reliability",
                     "reliable"}),
            "--reliability reliable contradicts --iox-queue-full discard: give one of them");
  EXPECT_TRUE(starts_with(refusal({"--iceoryx", "qos-test", "--history", "keep-last:257"}),
                          "--history keep-last:257 is not available on iceoryx: a subscriber's "
                          "queue holds at most 256 messages"));
}

// ---- the options themselves ------------------------------------------------------------------

TEST_F(QosMappingTest, RefusesAnUnknownReliability)
{
  EXPECT_TRUE(starts_with(refusal({"-u", "127.0.0.1:40000", "--reliability", "best_effort"}),
                          "invalid value 'best_effort' for --reliability"));
}

TEST_F(QosMappingTest, TheLocalPairChecksBothRolesBeforeAnythingStarts)
{
  EXPECT_TRUE(starts_with(refusal({"--local-pair", "--reliability", "reliable"}),
                          "--reliability reliable is not available on udp: "));
}

} // namespace
} // namespace netprof
