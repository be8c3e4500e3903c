// --nng URLs, the derived back-channel address, the queue rule, and pair's one connection.
// No timing assertions: every wait is bounded by a deadline only so nothing hangs.

#include "nng_address.hpp"
#include "nng_endpoint.hpp"

#include "support/test_sinks.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

using namespace std::chrono_literals;
using netprof::UsageError;
using netprof::nng_parts::back_channel_address;
using netprof::nng_parts::control_channel_address;
using netprof::nng_parts::parse_nng_address;
using netprof::nng_parts::reachable_form;
using netprof::nng_parts::Scheme;

TEST(NngAddress, TcpIsNormalisedToADottedQuad)
{
  const auto sut = parse_nng_address("tcp://localhost:5555");
  EXPECT_EQ(sut.scheme, Scheme::tcp);
  EXPECT_EQ(sut.url, "tcp://127.0.0.1:5555");
  EXPECT_EQ(sut.port, 5555);
}

TEST(NngAddress, IpcNeedsAnAbsolutePath)
{
  EXPECT_EQ(parse_nng_address("ipc:///tmp/x.ipc").path, "/tmp/x.ipc");
  EXPECT_THROW(parse_nng_address("ipc://x.ipc"), UsageError);
  EXPECT_THROW(parse_nng_address("ipc://"), UsageError);
}

TEST(NngAddress, IpcPathLeavesRoomForTheBackChannelsSuffix)
{
  EXPECT_NO_THROW(parse_nng_address("ipc:///" + std::string(101, 'a')));
  EXPECT_THROW(parse_nng_address("ipc:///" + std::string(102, 'a')), UsageError);
}

TEST(NngAddress, OtherSchemesAndPortZeroAreRefused)
{
  EXPECT_THROW(parse_nng_address("inproc://x"), UsageError);
  EXPECT_THROW(parse_nng_address("tcp://127.0.0.1"), UsageError);
  EXPECT_THROW(parse_nng_address("tcp://127.0.0.1:0"), UsageError);
  EXPECT_EQ(parse_nng_address("tcp://127.0.0.1:0", true).port, 0);
}

TEST(NngAddress, BackChannelIsTheNextPortOrTheDotBackFile)
{
  EXPECT_EQ(back_channel_address(parse_nng_address("tcp://127.0.0.1:5555")).url,
            "tcp://127.0.0.1:5556");
  EXPECT_EQ(back_channel_address(parse_nng_address("ipc:///tmp/x.ipc")).url,
            "ipc:///tmp/x.ipc.back");
  EXPECT_THROW(back_channel_address(parse_nng_address("tcp://127.0.0.1:65535")), UsageError);
}

TEST(NngAddress, PushPullsControlChannelIsThePortAfterTheBackChannels)
{
  EXPECT_EQ(control_channel_address(parse_nng_address("tcp://127.0.0.1:5555")).url,
            "tcp://127.0.0.1:5557");
  EXPECT_EQ(control_channel_address(parse_nng_address("ipc:///tmp/x.ipc")).url,
            "ipc:///tmp/x.ipc.ctl");
  EXPECT_THROW(control_channel_address(parse_nng_address("tcp://127.0.0.1:65534")), UsageError);
  EXPECT_NO_THROW(control_channel_address(parse_nng_address("tcp://127.0.0.1:65533")));
}

TEST(NngAddress, EveryInterfaceIsReachedOnLoopback)
{
  EXPECT_EQ(reachable_form(parse_nng_address("tcp://0.0.0.0:7000")).url, "tcp://127.0.0.1:7000");
}

TEST(NngQueue, MinusQBecomesMessagesWithinNngsLimits)
{
  EXPECT_EQ(netprof::nng_parts::queue_messages(0, 100), 128);
  EXPECT_EQ(netprof::nng_parts::queue_messages(1000, 100), 16);
  EXPECT_EQ(netprof::nng_parts::queue_messages(100'000, 100), 1000);
  EXPECT_EQ(netprof::nng_parts::queue_messages(1'000'000'000, 100), 8192);
}

TEST(NngPair, ASecondSubscriberIsRefusedAndTheFirstStillHears)
{
  const std::uint16_t port = netprof::nng_parts::pick_free_port_run("127.0.0.1", 1);
  netprof::nng_parts::EndpointSettings settings;
  settings.pattern = netprof::nng_parts::Pattern::pair;
  settings.data = parse_nng_address("tcp://127.0.0.1:" + std::to_string(port));
  settings.role = netprof::Role::publisher;
  netprof::nng_parts::NngEndpoint publisher(settings);
  settings.role = netprof::Role::subscriber;
  netprof::nng_parts::NngEndpoint first(settings);
  // The publisher admits whichever connection its listener takes first, which under load need
  // not be the first dialled: the second subscriber dials only once the first is in.
  const auto deadline = netprof::Clock::now() + 5s;
  while (publisher.facts().peak_connections == 0 && netprof::Clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(publisher.facts().peak_connections, 1u);
  netprof::nng_parts::NngEndpoint second(settings);

  const std::vector<std::byte> message(32, std::byte{7});
  netprof::testing::CollectingSink at_first;
  while (at_first.messages.empty() && netprof::Clock::now() < deadline) {
    ASSERT_NE(publisher.send(message).result, netprof::SendResult::failed);
    first.receive(at_first, 10ms);
  }
  ASSERT_FALSE(at_first.messages.empty());
  EXPECT_EQ(publisher.facts().peak_connections, 1u);
}

} // namespace
