// The local pair rebuilds each child's command line from the parsed settings; parsing those
// arguments again must give back the same settings, or the pair would measure something else.

#include "core/local_pair.hpp"

#include <netprof/cli.hpp>

#include <gtest/gtest.h>

namespace {

using namespace netprof;

RunConfig reparse(const std::vector<std::string>& args)
{
  TransportRegistry registry;
  register_builtin_transports(registry);
  std::vector<const char*> argv = {"netprof"};
  for (const auto& arg : args)
    argv.push_back(arg.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), registry).config;
}

RunConfig unusual_settings()
{
  RunConfig config;
  config.local_pair = true;
  config.payload_size = 777;
  config.queue_length = 123456;
  config.test_seconds = 2.25;
  config.send_hz = 1234.5;
  config.num_vars = 3;
  config.wait_seconds = 7.5;
  config.warmup_seconds = 0.125;
  config.mode = Mode::ping_pong;
  config.probe_hz = 99;
  config.probe_timeout_seconds = 0.3;
  config.idle_timeout_seconds = 4.5;
  config.wait_strategy = WaitStrategy::spin;
  config.max_loss_percent = 0.5;
  config.cpus = {0, 1};
  return config;
}

const std::vector<std::string> udp_publisher = {"-u", "127.0.0.1:40000"};
const std::vector<std::string> udp_subscriber = {"-u", "127.0.0.1:40001", "-u", "127.0.0.1:40000"};

TEST(LocalPairArguments, PublisherGetsEverySettingBack)
{
  const RunConfig sut = unusual_settings();
  const RunConfig back = reparse(local_pair_role_arguments(sut, Role::publisher, udp_publisher));

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
}

TEST(LocalPairArguments, SubscriberIsQuietAndGetsTheSecondCpu)
{
  const RunConfig sut = unusual_settings();
  const RunConfig back = reparse(local_pair_role_arguments(sut, Role::subscriber, udp_subscriber));

  EXPECT_EQ(back.role, Role::subscriber);
  EXPECT_EQ(back.id, 1u);
  EXPECT_TRUE(back.quiet);
  EXPECT_EQ(back.cpus, std::vector<int>{1});
  EXPECT_EQ(back.wait_strategy, WaitStrategy::spin);
}

TEST(LocalPairArguments, CountReplacesTime)
{
  RunConfig sut = unusual_settings();
  sut.count = 5000;
  sut.warmup_count = 10;
  const RunConfig back = reparse(local_pair_role_arguments(sut, Role::publisher, udp_publisher));

  EXPECT_EQ(back.count, std::optional<std::uint64_t>(5000));
  EXPECT_EQ(back.warmup_count, std::optional<std::uint64_t>(10));
}

} // namespace
