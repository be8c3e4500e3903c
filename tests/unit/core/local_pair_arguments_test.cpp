// The local pair passes the options the user gave to its children, routed by the option table,
// and adds what it fixes itself. Parsing a child's arguments again must give back the user's
// settings, or the pair would measure something else.

#include "core/process/local_pair.hpp"

#include <netprof/cli.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace netprof;

ParsedCommandLine parse(const std::vector<std::string>& args)
{
  TransportRegistry registry;
  register_builtin_transports(registry);
  std::vector<const char*> argv = {"netprof"};
  for (const auto& arg : args)
    argv.push_back(arg.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), registry);
}

const std::vector<std::string> unusual_settings = {"--local-pair",
                                                   "-s",
                                                   "777",
                                                   "-q",
                                                   "123456",
                                                   "-t",
                                                   "2.25",
                                                   "--send-hz",
                                                   "1234.5",
                                                   "--num-vars",
                                                   "3",
                                                   "--wait",
                                                   "7.5",
                                                   "--warmup-time",
                                                   "0.125",
                                                   "--mode",
                                                   "ping-pong",
                                                   "--probe-hz",
                                                   "99",
                                                   "--probe-timeout",
                                                   "0.3",
                                                   "--idle-timeout",
                                                   "4.5",
                                                   "--wait-strategy",
                                                   "spin",
                                                   "--max-loss",
                                                   "0.5",
                                                   "--cpu",
                                                   "0,1",
                                                   "--udp-batch",
                                                   "4"};

const std::vector<std::string> udp_publisher = {"-u", "127.0.0.1:40000"};
const std::vector<std::string> udp_subscriber = {"-u", "127.0.0.1:40001", "-u", "127.0.0.1:40000"};

std::vector<std::string> child(const ParsedCommandLine& parent, Role role)
{
  const bool publisher = role == Role::publisher;
  return local_pair_role_arguments(
      role, publisher ? parent.local_pair_options.publisher : parent.local_pair_options.subscriber,
      publisher ? udp_publisher : udp_subscriber, publisher ? 0 : 1);
}

bool has(const std::vector<std::string>& args, const std::string& token)
{
  return std::find(args.begin(), args.end(), token) != args.end();
}

// In a local group each subscriber has its own id, and the publisher waits for all of them.
TEST(LocalPairArguments, ALocalGroupNumbersItsSubscribersAndThePublisherWaitsForAll)
{
  const std::vector<std::string> publisher =
      local_pair_role_arguments(Role::publisher, {}, udp_publisher, 0, 4);
  const std::vector<std::string> third =
      local_pair_role_arguments(Role::subscriber, {}, udp_subscriber, 3, 4);
  const auto after = [](const std::vector<std::string>& args, const std::string& flag) {
    const auto at = std::find(args.begin(), args.end(), flag);
    return at != args.end() && at + 1 != args.end() ? *(at + 1) : std::string();
  };
  EXPECT_EQ(after(publisher, "-i"), "0");
  EXPECT_EQ(after(publisher, "--subscribers"), "4");
  EXPECT_EQ(after(third, "-i"), "3");
  EXPECT_TRUE(has(third, "--quiet"));
}

TEST(LocalPairArguments, PublisherGetsEverySettingBack)
{
  const ParsedCommandLine parent = parse(unusual_settings);
  const RunConfig& sut = parent.config;
  const RunConfig back = parse(child(parent, Role::publisher)).config;

  EXPECT_EQ(back.role, Role::publisher);
  EXPECT_EQ(back.payload_size, sut.payload_size);
  EXPECT_EQ(back.queue_length, sut.queue_length);
  EXPECT_EQ(back.test_seconds, sut.test_seconds);
  EXPECT_EQ(back.send_hz, sut.send_hz);
  EXPECT_EQ(back.num_vars, sut.num_vars);
  EXPECT_EQ(back.wait_seconds, sut.wait_seconds);
  EXPECT_EQ(back.warmup_seconds, sut.warmup_seconds);
  EXPECT_EQ(back.mode, sut.mode);
  EXPECT_EQ(back.probe_hz, sut.probe_hz);
  EXPECT_EQ(back.probe_timeout_seconds, sut.probe_timeout_seconds);
  EXPECT_EQ(back.idle_timeout_seconds, sut.idle_timeout_seconds);
  EXPECT_EQ(back.wait_strategy, sut.wait_strategy);
  EXPECT_EQ(back.max_loss_percent, sut.max_loss_percent);
  EXPECT_EQ(back.cpus, std::vector<int>{0});
  EXPECT_EQ(back.subscribers, 1u);
  EXPECT_FALSE(back.local_pair);
  EXPECT_TRUE(has(child(parent, Role::publisher), "--udp-batch")) << "transport options too";
}

TEST(LocalPairArguments, SubscriberIsQuietAndGetsTheSecondCpu)
{
  const ParsedCommandLine parent = parse(unusual_settings);
  const RunConfig back = parse(child(parent, Role::subscriber)).config;

  EXPECT_EQ(back.role, Role::subscriber);
  EXPECT_EQ(back.id, 1u);
  EXPECT_TRUE(back.quiet);
  EXPECT_EQ(back.cpus, std::vector<int>{1});
  EXPECT_EQ(back.wait_strategy, WaitStrategy::spin);
  EXPECT_EQ(back.idle_timeout_seconds, 4.5);
  EXPECT_TRUE(has(child(parent, Role::subscriber), "--udp-batch"));
}

TEST(LocalPairArguments, CountReplacesTime)
{
  const ParsedCommandLine parent =
      parse({"--local-pair", "--count", "5000", "--warmup-count", "10"});
  const RunConfig back = parse(child(parent, Role::publisher)).config;

  EXPECT_EQ(back.count, std::optional<std::uint64_t>(5000));
  EXPECT_EQ(back.warmup_count, std::optional<std::uint64_t>(10));
}

TEST(LocalPairArguments, OptionsAreForwardedAsTheUserWroteThem)
{
  const ParsedCommandLine parent = parse({"--local-pair", "-s64", "--time=0.5", "--cpu", "1"});

  EXPECT_EQ(parent.local_pair_options.publisher,
            (std::vector<std::string>{"-s64", "--time=0.5", "--cpu", "1"}));
  EXPECT_EQ(parent.local_pair_options.subscriber, (std::vector<std::string>{"-s64", "--time=0.5"}));
}

TEST(LocalPairArguments, TheReportOptionsGoToThePublisherAlone)
{
  const std::string json = ::testing::TempDir() + "local-pair.json";
  const ParsedCommandLine parent =
      parse({"--local-pair", "--json", json, "--quiet", "--histogram", "--subscribers", "1"});

  EXPECT_EQ(parent.local_pair_options.publisher,
            (std::vector<std::string>{"--json", json, "--quiet", "--histogram"}));
  EXPECT_TRUE(parent.local_pair_options.subscriber.empty())
      << "--subscribers and --local-pair are the pair's own; the subscriber writes no report";
  const RunConfig back = parse(child(parent, Role::publisher)).config;
  EXPECT_EQ(back.json_path, json);
  EXPECT_TRUE(back.print_histogram);
}

TEST(LocalPairArguments, ThePaceGoesToThePublisherAlone)
{
  const ParsedCommandLine parent =
      parse({"--local-pair", "--send-hz", "500", "--pace", "spin", "--subscribers", "1"});

  EXPECT_EQ(parse(child(parent, Role::publisher)).config.pace, PaceMode::spin);
  EXPECT_FALSE(has(child(parent, Role::subscriber), "--pace"))
      << "only the publisher paces; the subscriber would be told of an option it never reads";
}

} // namespace
