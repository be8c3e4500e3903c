#include "cli/option_table.hpp"
#include "cli/version.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace netprof {
namespace {

// The real registry: the UDP transport is what users get.
class ParseCommandLineTest : public ::testing::Test {
protected:
  ParseCommandLineTest() { register_builtin_transports(m_registry); }

  ParsedCommandLine parse(std::initializer_list<std::string> arguments) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage) {
      argv.push_back(argument.c_str());
    }
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);
  }

  // The UsageError text, or a marker that makes the failing expectation readable.
  std::string usage_error(std::initializer_list<std::string> arguments) const
  {
    try {
      parse(arguments);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(parsed without error)";
  }

  TransportRegistry m_registry;
};

// ---- defaults and every flag ----

TEST_F(ParseCommandLineTest, DefaultsMatchTheDocumentation)
{
  const auto sut = parse({"-u", "127.0.0.1:40000"});

  EXPECT_EQ(sut.action, ParsedCommandLine::Action::run);
  ASSERT_TRUE(sut.plan.opener) << "a publisher's plan opens its endpoint";
  EXPECT_EQ(sut.plan.addresses, (std::vector<std::string>{"127.0.0.1:40000"}));
  const RunConfig& config = sut.config;
  EXPECT_EQ(config.transport_name, "udp");
  EXPECT_EQ(config.role, Role::publisher);
  EXPECT_EQ(config.id, 0U);
  EXPECT_EQ(config.payload_size, 128U);
  EXPECT_EQ(config.queue_length, 1'000'000U);
  EXPECT_EQ(config.test_seconds, 10.0);
  EXPECT_FALSE(config.count.has_value());
  EXPECT_EQ(config.send_hz, 0.0);
  EXPECT_EQ(config.num_vars, 0U);
  EXPECT_EQ(config.subscribers, 1U);
  EXPECT_EQ(config.wait_seconds, 10.0);
  EXPECT_EQ(config.warmup_seconds, 0.5);
  EXPECT_FALSE(config.warmup_count.has_value());
  EXPECT_EQ(config.mode, Mode::stream);
  EXPECT_EQ(config.probe_hz, 1000.0);
  EXPECT_EQ(config.probe_timeout_seconds, 1.0);
  EXPECT_EQ(config.idle_timeout_seconds, 3.0);
  EXPECT_EQ(config.wait_strategy, WaitStrategy::block);
  EXPECT_TRUE(config.cpus.empty());
  EXPECT_FALSE(config.max_loss_percent.has_value());
  EXPECT_TRUE(config.json_path.empty());
  EXPECT_FALSE(config.quiet);
  EXPECT_FALSE(config.local_pair);
}

TEST_F(ParseCommandLineTest, KeepsTheCommandLineAsGiven)
{
  const auto sut = parse({"-u", "127.0.0.1:40000", "-s", "64"});

  const std::vector<std::string> expected{"netprof", "-u", "127.0.0.1:40000", "-s", "64"};
  EXPECT_EQ(sut.config.command_line, expected);
}

TEST_F(ParseCommandLineTest, ParsesShortForms)
{
  const auto sut = parse({"-i", "3", "-s", "64", "-q", "0", "-t", "2.5", "-u", "127.0.0.1:40001",
                          "-u", "127.0.0.1:40000"});

  EXPECT_EQ(sut.config.id, 3U);
  EXPECT_EQ(sut.config.role, Role::subscriber);
  EXPECT_EQ(sut.config.payload_size, 64U);
  EXPECT_EQ(sut.config.queue_length, 0U);
  EXPECT_EQ(sut.config.test_seconds, 2.5);
}

TEST_F(ParseCommandLineTest, ParsesEveryLongForm)
{
  const std::string json = (std::filesystem::path(::testing::TempDir()) / "r.json").string();
  const auto sut = parse({"--id",
                          "0",
                          "--size",
                          "256",
                          "--queue-length",
                          "4096",
                          "--time",
                          "0.25",
                          "--send-hz",
                          "500.5",
                          "--num-vars",
                          "7",
                          "--subscribers",
                          "0",
                          "--wait",
                          "2",
                          "--warmup-time",
                          "0",
                          "--max-loss",
                          "1.5",
                          "--mode",
                          "ping-pong",
                          "--probe-hz",
                          "20",
                          "--probe-timeout",
                          "0.5",
                          "--idle-timeout",
                          "4",
                          "--wait-strategy",
                          "spin",
                          "--cpu",
                          "0",
                          "--json",
                          json,
                          "--quiet",
                          "--udp",
                          "127.0.0.1:40000"});

  const RunConfig& config = sut.config;
  EXPECT_EQ(config.id, 0U);
  EXPECT_EQ(config.payload_size, 256U);
  EXPECT_EQ(config.queue_length, 4096U);
  EXPECT_EQ(config.test_seconds, 0.25);
  EXPECT_EQ(config.send_hz, 500.5);
  EXPECT_EQ(config.num_vars, 7U);
  EXPECT_EQ(config.subscribers, 0U);
  EXPECT_EQ(config.wait_seconds, 2.0);
  EXPECT_EQ(config.warmup_seconds, 0.0);
  EXPECT_EQ(config.max_loss_percent, 1.5);
  EXPECT_EQ(config.mode, Mode::ping_pong);
  EXPECT_EQ(config.probe_hz, 20.0);
  EXPECT_EQ(config.probe_timeout_seconds, 0.5);
  EXPECT_EQ(config.idle_timeout_seconds, 4.0);
  EXPECT_EQ(config.wait_strategy, WaitStrategy::spin);
  EXPECT_EQ(config.cpus, std::vector<int>{0});
  EXPECT_EQ(config.json_path, json);
  EXPECT_TRUE(config.quiet);
  EXPECT_EQ(config.transport_name, "udp");
}

TEST_F(ParseCommandLineTest, CountReplacesTheDefaultTime)
{
  const auto sut = parse({"-u", "127.0.0.1:40000", "--count", "5000"});

  EXPECT_EQ(sut.config.count, 5000U);
}

TEST_F(ParseCommandLineTest, WarmupCountReplacesTheDefaultWarmupTime)
{
  const auto sut = parse({"-u", "127.0.0.1:40000", "--warmup-count", "100"});

  EXPECT_EQ(sut.config.warmup_count, 100U);
}

TEST_F(ParseCommandLineTest, AcceptsStickyAndEqualsValues)
{
  const auto sut = parse({"-u", "127.0.0.1:40000", "-s64", "--time=3"});

  EXPECT_EQ(sut.config.payload_size, 64U);
  EXPECT_EQ(sut.config.test_seconds, 3.0);
}

TEST_F(ParseCommandLineTest, AcceptsAnExponentInSeconds)
{
  const auto sut = parse({"-u", "127.0.0.1:40000", "-t", "1e1"});

  EXPECT_EQ(sut.config.test_seconds, 10.0);
}

TEST_F(ParseCommandLineTest, LocalPairDefaultsToUdp)
{
  const auto sut = parse({"--local-pair", "-t", "3"});

  EXPECT_TRUE(sut.config.local_pair);
  EXPECT_EQ(sut.config.transport_name, "udp");
  EXPECT_EQ(sut.config.role, Role::publisher);
  EXPECT_EQ(sut.plan.local_pair.subscribers.size(), 1u);
}

TEST_F(ParseCommandLineTest, LocalPairTakesTwoCpus)
{
  const auto sut = parse({"--local-pair", "--cpu", "0,0"});

  EXPECT_EQ(sut.config.cpus, (std::vector<int>{0, 0}));
}

TEST_F(ParseCommandLineTest, LocalPairAcceptsAnExplicitPublisherId)
{
  const auto sut = parse({"--local-pair", "-i", "0"});

  EXPECT_EQ(sut.config.id, 0U);
}

TEST_F(ParseCommandLineTest, ToleratesAnEmptyArgv)
{
  const char* const argv[] = {nullptr};

  // No program name and no options: the defaults (a publisher on the default transport).
  const auto sut = parse_command_line(0, argv, m_registry);
  EXPECT_EQ(sut.config.role, Role::publisher);
}

// ---- errors: one line naming the problem ----

TEST_F(ParseCommandLineTest, RejectsAnUnknownOption)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--sise", "3"}),
            "unknown option '--sise' (did you mean '--size'?)");
}

TEST_F(ParseCommandLineTest, RejectsAnUnknownShortOption)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-x"}), "unknown option '-x' (see --help)");
}

TEST_F(ParseCommandLineTest, DoesNotCompleteAnAbbreviatedOptionButSuggestsIt)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--siz", "3"}),
            "unknown option '--siz' (did you mean '--size'?)");
}

TEST_F(ParseCommandLineTest, RejectsAMissingValue)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s"}), "option '--size' needs a value");
}

TEST_F(ParseCommandLineTest, RejectsAnEmptyValueAfterEquals)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--size="}), "option '--size' needs a value");
}

TEST_F(ParseCommandLineTest, DoesNotTakeTheNextLongOptionAsAValue)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--json", "--quiet"}),
            "option '--json' needs a value");
}

TEST_F(ParseCommandLineTest, DoesNotTakeTheNextShortOptionAsAValue)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "-t", "3"}),
            "option '--size' needs a value");
}

TEST_F(ParseCommandLineTest, NamesTheMissingValueNotTheArgumentItLeftBehind)
{
  // --send-hz takes "--count" as its value, which leaves "5" as a stray argument.
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--send-hz", "--count", "5"}),
            "option '--send-hz' needs a value");
}

TEST_F(ParseCommandLineTest, RejectsANonNumericValue)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--size", "abc"}),
            "invalid value 'abc' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsANegativeWholeNumber)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "-5"}),
            "invalid value '-5' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsAPlusSign)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "+5"}),
            "invalid value '+5' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsAFractionForAWholeNumber)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--count", "1.5"}),
            "invalid value '1.5' for --count: expected a whole number >= 1");
}

TEST_F(ParseCommandLineTest, RejectsAnEmptyNumber)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", ""}),
            "invalid value '' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsZeroSize)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "0"}),
            "invalid value '0' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsZeroTime)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "0"}),
            "invalid value '0' for --time: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsANegativeTime)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "-1"}),
            "invalid value '-1' for --time: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsATimeLongerThanADay)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "86401"}),
            "invalid value '86401' for --time: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsZeroWait)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--wait", "0"}),
            "invalid value '0' for --wait: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsZeroProbeRate)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--probe-hz", "0"}),
            "invalid value '0' for --probe-hz: expected a rate in Hz > 0, at most 1e9");
}

TEST_F(ParseCommandLineTest, RejectsAnIdAboveTheLimit)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-i", "65536"}),
            "invalid value '65536' for --id: too large (at most 65535)");
}

TEST_F(ParseCommandLineTest, RejectsTooManySubscribers)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--subscribers", "1025"}),
            "invalid value '1025' for --subscribers: too large (at most 1024)");
}

TEST_F(ParseCommandLineTest, RejectsAWholeNumberThatOverflows)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "18446744073709551616"}),
            "invalid value '18446744073709551616' for --size: too large (at most "
            "18446744073709551615)");
}

TEST_F(ParseCommandLineTest, RejectsASendRateAboveTheLimit)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--send-hz", "2e9"}),
            "invalid value '2e9' for --send-hz: expected a rate in Hz from 0 to 1e9 "
            "(0 = as fast as possible)");
}

TEST_F(ParseCommandLineTest, RejectsALossAboveOneHundredPercent)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--max-loss", "100.5"}),
            "invalid value '100.5' for --max-loss: expected a percentage from 0 to 100");
}

TEST_F(ParseCommandLineTest, RejectsTrailingJunk)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "10x"}),
            "invalid value '10x' for --time: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsTrailingJunkInAWholeNumber)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "10 "}),
            "invalid value '10 ' for --size: expected a size in bytes >= 1"
            " (K, M, G = 1024, 1024^2, 1024^3 bytes)");
}

TEST_F(ParseCommandLineTest, RejectsNan)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "nan"}),
            "invalid value 'nan' for --time: expected seconds from 0.001 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsInfinity)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--warmup-time", "inf"}),
            "invalid value 'inf' for --warmup-time: expected seconds from 0 to 86400");
}

TEST_F(ParseCommandLineTest, RejectsARepeatedOption)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-s", "1", "-s", "2"}),
            "option '--size' given more than once");
}

TEST_F(ParseCommandLineTest, RejectsAValueForASwitch)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--quiet=1"}), "option '--quiet' takes no value");
}

TEST_F(ParseCommandLineTest, RejectsTimeAndCountTogether)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "-t", "5", "--count", "100"}),
            "give either -t/--time or --count, not both");
}

TEST_F(ParseCommandLineTest, CountReceivedBoundsEitherModeAndTakesNoCount)
{
  const auto sut =
      parse({"-u", "127.0.0.1:40000", "--mode", "ping-pong", "--count-received", "10000"});
  EXPECT_EQ(sut.config.count_received, 10'000u);
  EXPECT_EQ(parse({"-u", "127.0.0.1:40000", "--count-received", "10"}).config.count_received, 10u);

  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--mode", "ping-pong", "--count", "5",
                         "--count-received", "10"}),
            "give either --count (messages sent) or --count-received (messages each "
            "subscriber received), not both");
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--subscribers", "0", "--count-received", "10"}),
            "--count-received waits for every subscriber's count: give --subscribers 1 or more");
}

TEST_F(ParseCommandLineTest, RejectsBothWarmupFlags)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--warmup-time", "1", "--warmup-count", "10"}),
            "give either --warmup-time or --warmup-count, not both");
}

TEST_F(ParseCommandLineTest, RejectsAnUnknownMode)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--mode", "burst"}),
            "invalid value 'burst' for --mode: expected stream or ping-pong");
}

TEST_F(ParseCommandLineTest, RejectsAnUnknownWaitStrategy)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--wait-strategy", "busy"}),
            "invalid value 'busy' for --wait-strategy: expected block, poll-then-block, yield or "
            "spin");
}

TEST_F(ParseCommandLineTest, PollThenBlockIsAWaitStrategyOfItsOwn)
{
  EXPECT_EQ(
      parse({"-u", "127.0.0.1:40000", "--wait-strategy", "poll-then-block"}).config.wait_strategy,
      WaitStrategy::poll_then_block);
}

TEST_F(ParseCommandLineTest, PaceDefaultsToHybridAndTakesSleepAndSpin)
{
  EXPECT_EQ(parse({"-u", "127.0.0.1:40000"}).config.pace, PaceMode::hybrid);
  EXPECT_EQ(parse({"-u", "127.0.0.1:40000", "--send-hz", "100", "--pace", "sleep"}).config.pace,
            PaceMode::sleep);
  EXPECT_EQ(parse({"-u", "127.0.0.1:40000", "--send-hz", "100", "--pace", "spin"}).config.pace,
            PaceMode::spin);
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--pace", "nap"}),
            "invalid value 'nap' for --pace: expected sleep, spin or hybrid");
}

TEST_F(ParseCommandLineTest, AcceptsYieldAsAWaitStrategy)
{
  EXPECT_EQ(parse({"-u", "127.0.0.1:40000", "--wait-strategy", "yield"}).config.wait_strategy,
            WaitStrategy::yield);
}

TEST_F(ParseCommandLineTest, RejectsTwoCpusWithoutLocalPair)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--cpu", "0,0"}),
            "invalid value '0,0' for --cpu: one process takes one CPU number (two only with "
            "--local-pair)");
}

TEST_F(ParseCommandLineTest, RejectsThreeCpusWithLocalPair)
{
  EXPECT_EQ(usage_error({"--local-pair", "--cpu", "0,0,0"}),
            "invalid value '0,0,0' for --cpu: --local-pair takes one or two CPU numbers "
            "(publisher,subscriber)");
}

TEST_F(ParseCommandLineTest, RejectsAnEmptyCpuListEntry)
{
  const std::string message = usage_error({"--local-pair", "--cpu", "0,"});

  EXPECT_EQ(message.rfind("invalid value '0,' for --cpu: expected comma-separated CPU numbers", 0),
            0U)
      << message;
}

TEST_F(ParseCommandLineTest, RejectsACpuThatIsNotOnline)
{
  const std::string message = usage_error({"-u", "127.0.0.1:40000", "--cpu", "100000"});

  EXPECT_EQ(message.rfind("invalid value '100000' for --cpu: expected comma-separated CPU "
                          "numbers, each below ",
                          0),
            0U)
      << message;
}

TEST_F(ParseCommandLineTest, RejectsAPositionalArgument)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "stray"}), "unexpected argument 'stray'");
}

TEST_F(ParseCommandLineTest, RejectsTheHiddenPositionalNameAsAnOption)
{
  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--unexpected-argument", "x"}),
            "unknown option '--unexpected-argument' (see --help)");
}

TEST_F(ParseCommandLineTest, RejectsLocalPairWithASubscriberId)
{
  EXPECT_EQ(usage_error({"--local-pair", "-i", "1"}),
            "--local-pair runs both the publisher and the subscriber: drop -i 1");
}

// --local-pair --subscribers N is a local group: the publisher and N subscriber processes, each
// with its own transport arguments (distinct ports over UDP).
TEST_F(ParseCommandLineTest, LocalPairWithSeveralSubscribersPlansEachOne)
{
  const auto sut = parse({"--local-pair", "--subscribers", "3"});
  EXPECT_EQ(sut.config.subscribers, 3u);
  ASSERT_EQ(sut.plan.local_pair.subscribers.size(), 3u);
  EXPECT_NE(sut.plan.local_pair.subscribers[0], sut.plan.local_pair.subscribers[1]);
  EXPECT_NE(sut.plan.local_pair.subscribers[1], sut.plan.local_pair.subscribers[2]);
}

TEST_F(ParseCommandLineTest, RejectsALocalGroupItCannotRun)
{
  EXPECT_EQ(usage_error({"--local-pair", "--subscribers", "0"}),
            "--local-pair starts the subscribers it waits for: give --subscribers 1 or more");
  EXPECT_EQ(usage_error({"--local-pair", "--subscribers", "65"}),
            "--local-pair starts at most 64 subscribers on this host: drop --subscribers 65");
  EXPECT_EQ(usage_error({"--local-pair", "--threads", "--subscribers", "2"}),
            "--local-pair --threads runs one subscriber: drop --subscribers 2, or drop --threads "
            "to run 2 subscriber processes");
}

TEST_F(ParseCommandLineTest, RejectsThreadsWithoutLocalPair)
{
  EXPECT_EQ(usage_error({"--threads", "-u", "127.0.0.1:40000"}),
            "--threads runs the publisher and subscriber of --local-pair as threads of one "
            "process: give it with --local-pair");
}

TEST_F(ParseCommandLineTest, LocalPairTakesThreadsAndTwoCpus)
{
  const auto sut = parse({"--local-pair", "--threads", "--cpu", "0,0"});

  EXPECT_TRUE(sut.config.local_pair);
  EXPECT_TRUE(sut.config.threads);
  EXPECT_EQ(sut.local_pair_options.publisher, (std::vector<std::string>{"--cpu", "0"}));
  EXPECT_EQ(sut.local_pair_options.subscriber, (std::vector<std::string>{"--cpu", "0"}));
}

TEST_F(ParseCommandLineTest, AsksTheTransportForItsLocalPairArgumentsEarly)
{
  // UDP's local pair takes no -u or two; one is caught before anything runs.
  EXPECT_THROW(parse({"--local-pair", "-u", "127.0.0.1:40000"}), UsageError);
}

TEST_F(ParseCommandLineTest, LocalPairAcceptsTwoUdpAddresses)
{
  const auto sut = parse({"--local-pair", "-u", "127.0.0.1:40000", "-u", "127.0.0.1:40001"});

  EXPECT_EQ(sut.config.transport_name, "udp");
}

TEST_F(ParseCommandLineTest, WithoutATransportOptionUsesMadarasDefaultMulticast)
{
  EXPECT_EQ(parse({"-t", "3"}).config.transport_name, "multicast");
}

TEST_F(ParseCommandLineTest, PassesTheTransportsOwnValidationError)
{
  // A subscriber with only its own address, port 0: nobody could contact it, and UDP's
  // validate() names the problem.
  EXPECT_THROW(parse({"-i", "1", "-u", "127.0.0.1:0"}), UsageError);
}

TEST_F(ParseCommandLineTest, RejectsAJsonFileInAMissingDirectory)
{
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "no-such-dir" / "r.json").string();
  const std::string directory = std::filesystem::path(path).parent_path().string();

  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--json", path}),
            "invalid value '" + path + "' for --json: directory '" + directory +
                "' does not exist");
}

TEST_F(ParseCommandLineTest, RejectsAJsonPathThatIsADirectory)
{
  const std::string path = ::testing::TempDir();

  EXPECT_EQ(usage_error({"-u", "127.0.0.1:40000", "--json", path}),
            "invalid value '" + path + "' for --json: is a directory, expected a file name");
}

// ---- --help and --version ----

TEST_F(ParseCommandLineTest, HelpReturnsTheHelpText)
{
  const auto sut = parse({"--help"});

  EXPECT_EQ(sut.action, ParsedCommandLine::Action::help);
  EXPECT_EQ(sut.text, help_text(m_registry));
}

TEST_F(ParseCommandLineTest, HelpNeedsNoTransport)
{
  EXPECT_EQ(parse({"-h"}).action, ParsedCommandLine::Action::help);
}

TEST_F(ParseCommandLineTest, HelpWinsOverOtherOptions)
{
  EXPECT_EQ(parse({"-s", "64", "-t", "3", "-h"}).action, ParsedCommandLine::Action::help);
}

TEST_F(ParseCommandLineTest, HelpWinsOverABrokenCommandLine)
{
  EXPECT_EQ(parse({"--sise", "3", "stray", "--help"}).action, ParsedCommandLine::Action::help);
}

TEST_F(ParseCommandLineTest, HelpWinsOverVersion)
{
  EXPECT_EQ(parse({"--version", "--help"}).action, ParsedCommandLine::Action::help);
}

TEST_F(ParseCommandLineTest, VersionNamesTheVersionBuildTypeAndCommit)
{
  const auto sut = parse({"--version"});

  EXPECT_EQ(sut.action, ParsedCommandLine::Action::version);
  EXPECT_EQ(sut.text, std::string("netprof ") + NETPROF_VERSION + " (" + NETPROF_BUILD_TYPE +
                          ", commit " + cli::git_commit() + ")\n");
}

TEST(GitCommit, IsTwelveHexDigitsMaybeDirtyOrUnknown)
{
  EXPECT_TRUE(std::regex_match(cli::git_commit(), std::regex("[0-9a-f]{12}(-dirty)?|unknown")))
      << cli::git_commit();
}

TEST_F(ParseCommandLineTest, HelpListsEveryCoreGroup)
{
  const std::string sut = help_text(m_registry);

  for (const char* group : {"General:", "Test:", "Latency:", "Waiting and pinning:", "Output:"}) {
    EXPECT_NE(sut.find(group), std::string::npos) << group;
  }
}

TEST_F(ParseCommandLineTest, HelpListsEveryCoreOption)
{
  const std::string sut = help_text(m_registry);

  for (const char* option :
       {"--help",          "--version",      "--id",       "--local-pair",    "--threads",
        "--size",          "--queue-length", "--time",     "--count",         "--send-hz",
        "--num-vars",      "--subscribers",  "--wait ",    "--warmup-time",   "--warmup-count",
        "--max-loss",      "--mode",         "--probe-hz", "--probe-timeout", "--idle-timeout",
        "--wait-strategy", "--cpu",          "--json",     "--format",        "--quiet"}) {
    EXPECT_NE(sut.find(option), std::string::npos) << option;
  }
}

TEST_F(ParseCommandLineTest, HelpAllListsTheUdpTransportGroup)
{
  const std::string sut = help_text(m_registry, "all");

  EXPECT_NE(sut.find("\nudp  UDP unicast"), std::string::npos);
  EXPECT_NE(sut.find("-u [ --udp ]"), std::string::npos);
}

TEST_F(ParseCommandLineTest, HelpShowsTheExamples)
{
  const std::string sut = help_text(m_registry);

  EXPECT_NE(sut.find("netprof -i 0 -u 127.0.0.1:40000"), std::string::npos);
  EXPECT_NE(sut.find("netprof -i 1 -u 127.0.0.1:40001 -u 127.0.0.1:40000"), std::string::npos);
  EXPECT_NE(sut.find("netprof --local-pair -t 3"), std::string::npos);
}

// The general help, --help all and each transport's.
std::vector<std::string> help_topics(const TransportRegistry& registry)
{
  std::vector<std::string> topics = {"", "all"};
  for (const auto& entry : registry.entries())
    topics.push_back(entry.name);
  return topics;
}

TEST_F(ParseCommandLineTest, HelpHasNoTrailingBlanks)
{
  for (const std::string& topic : help_topics(m_registry)) {
    const std::string sut = help_text(m_registry, topic);

    EXPECT_EQ(sut.find(" \n"), std::string::npos) << topic;
  }
}

TEST_F(ParseCommandLineTest, HelpFitsEightyColumns)
{
  for (const std::string& topic : help_topics(m_registry)) {
    std::istringstream sut(help_text(m_registry, topic));

    for (std::string line; std::getline(sut, line);) {
      EXPECT_LE(line.size(), 80U) << topic << ": " << line;
    }
  }
}

// Boost used to break a description inside a word ("/dev/shm/netprof-NAM", then "E").
TEST_F(ParseCommandLineTest, HelpWrapsDescriptionsOnlyAtSpaces)
{
  std::set<std::string> printed;
  std::istringstream help(help_text(m_registry, "all"));
  for (std::string word; help >> word;) {
    printed.insert(word);
  }
  std::vector<OptionSpec> specs;
  for (const auto& row : cli::core_option_table()) {
    specs.push_back(row.spec);
  }
  for (const auto& entry : m_registry.entries()) {
    for (const OptionSpec& spec : entry.options.options) {
      specs.push_back(spec);
    }
  }

  for (const OptionSpec& spec : specs) {
    std::istringstream words(spec.help);
    for (std::string word; words >> word;) {
      EXPECT_TRUE(printed.contains(word)) << "--" << spec.long_name << ": " << word;
    }
  }
  EXPECT_TRUE(printed.contains("/dev/shm/netprof-NAME,"));
}

TEST_F(ParseCommandLineTest, HelpListsTheExitCodes)
{
  const std::string sut = help_text(m_registry);

  EXPECT_NE(sut.find("Exit status:"), std::string::npos);
  for (const char* line :
       {"  0    test passed", "  1    test ran but failed", "  2    bad command line",
        "  3    runtime or transport error", "  130  interrupted"}) {
    EXPECT_NE(sut.find(line), std::string::npos) << line;
  }
}

// ---- what a new user meets in the first minutes (issue 31) ----

std::size_t lines(const std::string& text)
{
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// ---- --help TRANSPORT ----

TEST_F(ParseCommandLineTest, GeneralHelpLeavesTheTransportsOptionsOut)
{
  const std::string sut = help_text(m_registry);

  EXPECT_LT(lines(sut) * 2, lines(help_text(m_registry, "all")));
  EXPECT_FALSE(contains(sut, "--mc-ttl"));
  EXPECT_FALSE(contains(sut, "--fragment-size"));
  EXPECT_TRUE(contains(sut, "--size"));
  EXPECT_TRUE(contains(sut, "netprof --help TRANSPORT"));
}

TEST_F(ParseCommandLineTest, GeneralHelpNamesEveryTransportWithItsSummary)
{
  const std::string sut = help_text(m_registry);

  for (const TransportDescriptor& entry : m_registry.entries())
    EXPECT_TRUE(contains(sut, "\n  " + entry.name + "  ") &&
                contains(sut, entry.summary.substr(0, entry.summary.find(' ', 20))))
        << entry.name;
}

TEST_F(ParseCommandLineTest, HelpOfOneTransportGivesItsOptionsAlone)
{
  const std::string sut = help_text(m_registry, "udp");

  EXPECT_TRUE(contains(sut, "-u [ --udp ]"));
  EXPECT_FALSE(contains(sut, "--size"));
  EXPECT_FALSE(contains(sut, "--mc-ttl"));
  EXPECT_TRUE(contains(sut, "netprof --help all"));
}

TEST_F(ParseCommandLineTest, HelpTakesItsTopicAfterItOrAfterAnEqualsSign)
{
  for (const auto& arguments :
       {std::vector<std::string>{"--help", "udp"}, std::vector<std::string>{"--help=udp"},
        std::vector<std::string>{"-s", "64", "-h", "udp"}}) {
    std::vector<const char*> argv = {"netprof"};
    for (const std::string& argument : arguments)
      argv.push_back(argument.c_str());
    const auto sut = parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);

    EXPECT_EQ(sut.action, ParsedCommandLine::Action::help);
    EXPECT_EQ(sut.text, help_text(m_registry, "udp"));
  }
}

TEST_F(ParseCommandLineTest, HelpOfAnUnknownTopicIsABadCommandLine)
{
  const std::string sut = usage_error({"--help", "udpp"});

  EXPECT_TRUE(contains(sut, "--help udpp: no such transport")) << sut;
  EXPECT_TRUE(contains(sut, "expected all, udp")) << sut;
}

TEST_F(ParseCommandLineTest, ThreadsHelpNamesEveryTransportThatRunsAsThreads)
{
  const std::string sut = help_text(m_registry);
  const std::size_t threads = sut.find("\n  --threads ");
  ASSERT_NE(threads, std::string::npos);
  const std::string row = sut.substr(threads, sut.find("\n  -", threads + 1) - threads);

  for (const TransportDescriptor& entry : m_registry.entries()) {
    const bool named =
        contains(row, " " + entry.name + ",") || contains(row, " " + entry.name + ".");
    EXPECT_EQ(named, entry.flags.threads) << entry.name << " in: " << row;
  }
}

// ---- sizes ----

TEST_F(ParseCommandLineTest, SizesTakeBinarySuffixes)
{
  EXPECT_EQ(parse({"--local-pair", "-s", "1k"}).config.payload_size, 1024U);
  EXPECT_EQ(parse({"--local-pair", "-s", "4KiB"}).config.payload_size, 4096U);
  EXPECT_EQ(parse({"--local-pair", "-q", "2M"}).config.queue_length, 2U * 1024 * 1024);
  EXPECT_EQ(parse({"--local-pair", "-s", "64"}).config.payload_size, 64U);
}

TEST_F(ParseCommandLineTest, ABadSizeNamesTheSuffixes)
{
  EXPECT_EQ(usage_error({"--local-pair", "-s", "1.5k"}),
            "invalid value '1.5k' for --size: expected a size in bytes >= 1 (K, M, G = 1024, "
            "1024^2, 1024^3 bytes)");
}

// ---- --json - ----

TEST_F(ParseCommandLineTest, JsonDashMeansStandardOutput)
{
  const auto sut = parse({"--local-pair", "--json", "-"});

  EXPECT_EQ(sut.config.json_path, "-");
  EXPECT_TRUE(json_on_stdout(sut.config));
}

// ---- typos ----

TEST_F(ParseCommandLineTest, ATypoGetsTheOptionItMeant)
{
  EXPECT_EQ(usage_error({"--local-pair", "--subscriber", "2"}),
            "unknown option '--subscriber' (did you mean '--subscribers'?)");
  EXPECT_EQ(usage_error({"--local-pair", "--wiat", "2"}),
            "unknown option '--wiat' (did you mean '--wait'?)");
}

// ---- bare transport flags ----

// Every transport whose naming flag may be given alone (it has an implicit value), as its
// descriptor declares it: no list of names here.
TEST_F(ParseCommandLineTest, BareTransportFlagsPickLoopbackAddressesForTheLocalPair)
{
  std::size_t bare = 0;
  for (const TransportDescriptor& transport : m_registry.entries()) {
    const OptionSpec& naming = transport.options.options.front();
    if (!naming.implicit_text)
      continue;
    ++bare;
    const auto sut = parse({"--local-pair", "--" + naming.long_name});

    EXPECT_EQ(sut.config.transport_name, transport.name);
    EXPECT_FALSE(sut.plan.local_pair.publisher.empty()) << transport.name;
  }
  EXPECT_GE(bare, 3U) << "tcp, uds and zmq at least take their flag alone";
}

TEST_F(ParseCommandLineTest, ABareTransportFlagStillTakesAValue)
{
  const auto sut = parse({"-i", "0", "--tcp", "127.0.0.1:40000"});

  EXPECT_EQ(sut.config.transport_name, "tcp");
}

// ---- several publishers ----

TEST_F(ParseCommandLineTest, IdsBelowPublishersPublishTheRestSubscribe)
{
  EXPECT_EQ(parse({"-i", "1", "--publishers", "2", "-u", "127.0.0.1:40000"}).config.role,
            Role::publisher);
  EXPECT_EQ(
      parse({"-i", "2", "--publishers", "2", "-u", "127.0.0.1:40100", "-u", "127.0.0.1:40000"})
          .config.role,
      Role::subscriber);
  EXPECT_EQ(parse({"-i", "1", "-u", "127.0.0.1:40100", "-u", "127.0.0.1:40000"}).config.role,
            Role::subscriber); // MADARA's rule when --publishers is not given
}

// Publisher 1 binds the port given plus one; a subscriber plans a stream for each publisher.
TEST_F(ParseCommandLineTest, EachPublisherHasAStreamOfItsOwn)
{
  const auto publisher = parse({"-i", "1", "--publishers", "2", "--tcp", "127.0.0.1:40000"});
  EXPECT_EQ(publisher.plan.addresses, (std::vector<std::string>{"127.0.0.1:40001"}));
  EXPECT_TRUE(publisher.streams.empty());

  const auto subscriber = parse({"-i", "5", "--publishers", "3", "--tcp", "127.0.0.1:40000"});
  ASSERT_EQ(subscriber.streams.size(), 3u);
  EXPECT_EQ(subscriber.streams[2].publisher, 2u);
  EXPECT_EQ(subscriber.streams[2].plan.addresses, (std::vector<std::string>{"127.0.0.1:40002"}));
  EXPECT_TRUE(parse({"-i", "1", "--tcp", "127.0.0.1:40000"}).streams.empty());
}

// Topic t of publisher p is stream p*T+t: a publisher plans its own topics, a subscriber all.
TEST_F(ParseCommandLineTest, EachTopicOfEachPublisherHasAStreamOfItsOwn)
{
  const auto publisher =
      parse({"-i", "1", "--publishers", "2", "--topics", "3", "--tcp", "127.0.0.1:40000"});
  ASSERT_EQ(publisher.streams.size(), 3u);
  EXPECT_EQ(publisher.streams[0].plan.addresses, (std::vector<std::string>{"127.0.0.1:40003"}));
  EXPECT_EQ(publisher.streams[2].topic, 2u);
  EXPECT_EQ(publisher.streams[2].plan.addresses, (std::vector<std::string>{"127.0.0.1:40005"}));
  EXPECT_EQ(publisher.plan.addresses, publisher.streams[0].plan.addresses);

  const auto subscriber =
      parse({"-i", "2", "--publishers", "2", "--topics", "3", "--uds", "/tmp/netprof-t.sock"});
  ASSERT_EQ(subscriber.streams.size(), 6u);
  EXPECT_EQ(subscriber.streams[4].publisher, 1u);
  EXPECT_EQ(subscriber.streams[4].topic, 1u);
  EXPECT_EQ(subscriber.streams[4].plan.addresses,
            (std::vector<std::string>{"/tmp/netprof-t.sock.4"}));
  // A DDS topic's name has no '.': stream k's takes NAME_k.
  const auto dds = parse({"-i", "0", "--topics", "2", "--dds", "np"});
  ASSERT_EQ(dds.streams.size(), 2u);
  EXPECT_EQ(dds.streams[1].plan.addresses, (std::vector<std::string>{"np_1"}));
  // NNG's stream takes three ports (data, back and control channels): stream k's are 3k up.
  const auto nng = parse({"-i", "0", "--topics", "2", "--nng", "tcp://127.0.0.1:5000"});
  ASSERT_EQ(nng.streams.size(), 2u);
  EXPECT_EQ(nng.streams[1].plan.addresses, (std::vector<std::string>{"tcp://127.0.0.1:5003"}));
}

TEST_F(ParseCommandLineTest, PublishersNeedATransportWithAStreamForEach)
{
  // Multicast's and broadcast's streams take the port given + k, a shared medium's like any.
  const auto multicast = parse({"-i", "3", "--publishers", "2", "-m", "239.255.0.1:4150"});
  ASSERT_EQ(multicast.streams.size(), 2u);
  EXPECT_EQ(multicast.streams[1].plan.addresses, (std::vector<std::string>{"239.255.0.1:4151"}));
  // By hand, with no address given, every publisher would take the default group.
  EXPECT_EQ(usage_error({"-i", "0", "--publishers", "2"}),
            "--publishers 2: give the multicast transport's -m/--multicast group:port: "
            "each publisher's own is derived from it, and without it every one would take the "
            "same default");
  EXPECT_EQ(usage_error({"-i", "1", "--topics", "2", "--shm"})
                .rfind("--topics 2: give the shm transport's --shm NAME", 0),
            0u);
  EXPECT_NE(usage_error({"--publishers", "0"}).find("invalid value '0' for --publishers"),
            std::string::npos);
  EXPECT_NE(usage_error({"--publishers", "2", "--local-pair", "--threads", "--tcp"})
                .find("--local-pair --threads runs one publisher"),
            std::string::npos);
  EXPECT_NE(usage_error({"--publishers", "16", "--local-pair", "--subscribers", "60"})
                .find("at most 64 processes"),
            std::string::npos);
}

// In a local group, publisher k's JSON goes beside publisher 0's, which the pair gathers.
TEST_F(ParseCommandLineTest, ALaterPublisherOfALocalGroupWritesItsJsonBesideTheFirst)
{
  const std::string path = (std::filesystem::temp_directory_path() / "netprof-p.json").string();
  const std::vector<std::string> storage = {
      "netprof", "-i", "2", "--publishers", "3", "--tcp", "127.0.0.1:40000", "--json", path};
  std::vector<const char*> argv;
  for (const auto& argument : storage)
    argv.push_back(argument.c_str());
  const int argc = static_cast<int>(argv.size());
  EXPECT_EQ(
      parse_command_line(argc, argv.data(), m_registry, PairLayout::processes).config.json_path,
      path + ".2");
  EXPECT_EQ(parse_command_line(argc, argv.data(), m_registry).config.json_path, path);
}

} // namespace
} // namespace netprof
