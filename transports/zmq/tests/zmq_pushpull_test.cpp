// --zmq-pattern pushpull (issue 33, round-robin fan-out over ZeroMQ): where the PUSH/PULL pair
// binds and connects, what the plan refuses, and what real sockets on loopback carry: one
// subscriber gets everything over PUSH in order; under round-robin PUSH deals the data in turn
// while a control message still reaches every subscriber over the XPUB.

#include "zmq/zmq_address.hpp"
#include "zmq/zmq_endpoint.hpp"
#include "zmq/zmq_transport.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"
#include "zmq_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using testing::Bytes;
using testing::bytes;
using testing::CollectingSink;
using testing::receive_until;
using testing::say_hello;
using testing::settings_for;
using testing::TemporaryDirectory;

std::string deal_text(const std::string& value, zeromq::Inproc inproc = zeromq::Inproc::refused)
{
  return zeromq::deal_address(zeromq::parse_address(value, zeromq::Use::bind, inproc)).text;
}

std::string deal_refusal(const std::string& value)
{
  try {
    deal_text(value);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

// Two free loopback ports in a row: the endpoint's own and its PUSH/PULL's.
std::string free_pushpull_endpoint()
{
  const auto ports = zeromq::pick_free_tcp_ports("127.0.0.1", 1, zeromq::ports_per_stream);
  return "tcp://127.0.0.1:" + std::to_string(ports.at(0));
}

zeromq::EndpointSettings pushpull(zeromq::EndpointSettings settings, bool round_robin = false)
{
  settings.pattern = zeromq::Pattern::pushpull;
  settings.round_robin = round_robin;
  return settings;
}

// Deals `message` until the transport takes it (PUSH waits for a connected PULL), for at most 5 s.
void deal_until_taken(zeromq::ZmqEndpoint& publisher, const Bytes& message)
{
  const auto deadline = Clock::now() + 5s;
  SendOutcome outcome = publisher.deal(message);
  while (outcome.result == SendResult::back_pressured && Clock::now() < deadline)
    outcome = publisher.deal(message);
  ASSERT_EQ(outcome, SendOutcome{});
}

std::string notes_of(const Endpoint& endpoint)
{
  std::string all;
  for (const std::string& note : endpoint.facts().notes)
    all += note + "\n";
  return all;
}

TEST(ZmqDealAddress, IsTheNextPortOrTheNameWithDealAfterIt)
{
  EXPECT_EQ(deal_text("tcp://127.0.0.1:5555"), "tcp://127.0.0.1:5556");
  EXPECT_EQ(deal_text("tcp://[::1]:7000"), "tcp://[::1]:7001");
  EXPECT_EQ(deal_text("tcp://*:*"), "tcp://*:*") << "a port left open stays open";
  EXPECT_EQ(deal_text("ipc:///tmp/a.ipc"), "ipc:///tmp/a.ipc.deal");
  EXPECT_EQ(deal_text("ipc://@name"), "ipc://@name.deal");
  EXPECT_EQ(deal_text("ipc://*"), "ipc://*");
  EXPECT_EQ(deal_text("inproc://np", zeromq::Inproc::allowed), "inproc://np.deal");
}

TEST(ZmqDealAddress, RefusesWhereThereIsNoRoomWithOneLine)
{
  const std::string last_port = deal_refusal("tcp://127.0.0.1:65535");
  EXPECT_NE(last_port.find("'tcp://127.0.0.1:65535'"), std::string::npos) << last_port;
  EXPECT_NE(last_port.find("none after 65535"), std::string::npos) << last_port;
  const std::string long_path =
      deal_refusal("ipc:///" + std::string(zeromq::max_ipc_path - 2, 'p'));
  EXPECT_NE(long_path.find("\".deal\""), std::string::npos) << long_path;
  EXPECT_EQ(long_path.find('\n'), std::string::npos);
}

TEST(ZmqPushPullPlan, RefusesWhatPushCannotDoNamingTheWayOut)
{
  const auto plan_message = [](const std::vector<std::string>& arguments, std::size_t subscribers,
                               bool round_robin) {
    EndpointRequest endpoint;
    endpoint.subscribers = subscribers;
    endpoint.round_robin = round_robin;
    try {
      netprof::testing::planned(zmq_transport(), arguments)->plan(PlanRole::publisher, endpoint);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  const std::vector<std::string> pushpull = {"--zmq", "tcp://127.0.0.1:5555", "--zmq-pattern",
                                             "pushpull"};
  EXPECT_NE(plan_message(pushpull, 3, false).find("takes exactly one subscriber, not 3"),
            std::string::npos);
  EXPECT_EQ(plan_message(pushpull, 3, true), "(no error)");
  EXPECT_EQ(plan_message(pushpull, 1, false), "(no error)");
  EXPECT_NE(
      plan_message({"--zmq", "tcp://127.0.0.1:5555"}, 3, true).find("use --zmq-pattern pushpull"),
      std::string::npos);
}

TEST(ZmqPushPullPlan, TheLocalPairLeavesTheDealFileToCleanUp)
{
  const LocalPairPlan plan =
      netprof::testing::planned(zmq_transport(),
                                {"--zmq", "ipc:///tmp/np-pair.ipc", "--zmq-pattern", "pushpull"})
          ->pair_plan(1);
  EXPECT_NE(std::find(plan.files.begin(), plan.files.end(), "/tmp/np-pair.ipc.deal"),
            plan.files.end());
}

TEST(ZmqPushPullPlan, TheLocalPairRefusesAPortWithNoneAfterItBeforeAnyChild)
{
  const auto pair = netprof::testing::planned(
      zmq_transport(), {"--zmq", "tcp://127.0.0.1:65535", "--zmq-pattern", "pushpull"});
  EXPECT_THROW(pair->pair_plan(1), UsageError);
  const auto pubsub =
      netprof::testing::planned(zmq_transport(), {"--zmq", "tcp://127.0.0.1:65535"});
  EXPECT_NO_THROW(pubsub->pair_plan(1)) << "only pushpull takes the next port";
}

// PUSH waits at the high-water mark, so pushpull is reliable without --zmq-nodrop, which the
// XPUB of pubsub needs for that.
TEST(ZmqPushPullPlan, IsReliableWithoutNoDrop)
{
  EndpointRequest request;
  request.role = Role::publisher;
  const auto qos_of = [&](std::vector<std::string> arguments) {
    return netprof::testing::planned(zmq_transport(), arguments)->qos(request);
  };
  const EffectiveQos pushpull =
      qos_of({"--zmq", "tcp://127.0.0.1:5555", "--zmq-pattern", "pushpull"});
  EXPECT_EQ(pushpull.reliability, Reliability::reliable);
  EXPECT_EQ(pushpull.history, HistoryKind::keep_all);
  const EffectiveQos pubsub = qos_of({"--zmq", "tcp://127.0.0.1:5555"});
  EXPECT_EQ(pubsub.reliability, Reliability::best_effort);
  EXPECT_EQ(pubsub.history, HistoryKind::keep_last);
}

TEST(ZmqPushPull, OneSubscriberGetsEverythingOverPushInOrder)
{
  const std::string endpoint = free_pushpull_endpoint();
  zeromq::ZmqEndpoint publisher(pushpull(settings_for(Role::publisher, endpoint, {})));
  zeromq::ZmqEndpoint subscriber(
      pushpull(settings_for(Role::subscriber, "tcp://127.0.0.1:*", {endpoint})));
  say_hello(subscriber, publisher);

  constexpr int count = 200;
  const auto deadline = Clock::now() + 5s;
  for (int i = 0; i < count; ++i) {
    SendOutcome outcome = publisher.send(bytes({'N', i}));
    while (outcome.result == SendResult::back_pressured && Clock::now() < deadline)
      outcome = publisher.send(bytes({'N', i}));
    ASSERT_EQ(outcome, SendOutcome{}) << "message " << i;
  }
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(subscriber, at_subscriber, count));
  for (int i = 0; i < count; ++i)
    EXPECT_EQ(at_subscriber.messages[static_cast<std::size_t>(i)], bytes({'N', i}));
  EXPECT_NE(notes_of(publisher).find("everything to the one subscriber over PUSH"),
            std::string::npos)
      << notes_of(publisher);
  EXPECT_NE(notes_of(publisher).find("at the HWM PUSH waits"), std::string::npos);
}

TEST(ZmqPushPull, RoundRobinDealsInTurnAndSendsTheRestToEveryone)
{
  const std::string endpoint = free_pushpull_endpoint();
  zeromq::ZmqEndpoint publisher(pushpull(settings_for(Role::publisher, endpoint, {}), true));
  zeromq::ZmqEndpoint first(
      pushpull(settings_for(Role::subscriber, "tcp://127.0.0.1:*", {endpoint})));
  zeromq::ZmqEndpoint second(
      pushpull(settings_for(Role::subscriber, "tcp://127.0.0.1:*", {endpoint})));
  say_hello(first, publisher);
  say_hello(second, publisher);

  // Until each PULL is connected, PUSH deals among those that are: a marker reaches both first.
  CollectingSink at_first;
  CollectingSink at_second;
  const auto deadline = Clock::now() + 5s;
  while ((at_first.messages.empty() || at_second.messages.empty()) && Clock::now() < deadline) {
    ASSERT_NO_FATAL_FAILURE(deal_until_taken(publisher, bytes({'N', 'm'})));
    first.receive(at_first, 5ms);
    second.receive(at_second, 5ms);
  }
  ASSERT_FALSE(at_first.messages.empty() || at_second.messages.empty());
  // Markers still on their way: each reads until it has heard nothing for 50 ms.
  for (const auto& [reader, sink] :
       {std::pair{&first, &at_first}, std::pair{&second, &at_second}}) {
    while (reader->receive(*sink, 50ms) == ReceiveResult::received) {
    }
  }
  const std::size_t before_first = at_first.messages.size();
  const std::size_t before_second = at_second.messages.size();

  constexpr std::size_t dealt = 100;
  for (std::size_t i = 0; i < dealt; ++i)
    ASSERT_NO_FATAL_FAILURE(deal_until_taken(publisher, bytes({'N', 'd'})));
  ASSERT_EQ(publisher.send(bytes({'N', 'c'})).result, SendResult::sent);

  const auto whole = Clock::now() + 5s;
  const auto taken = [&] {
    return at_first.messages.size() + at_second.messages.size() - before_first - before_second;
  };
  while (taken() < dealt + 2 && Clock::now() < whole) {
    ASSERT_NE(first.receive(at_first, 5ms), ReceiveResult::failed);
    ASSERT_NE(second.receive(at_second, 5ms), ReceiveResult::failed);
  }
  ASSERT_EQ(taken(), dealt + 2) << "each dealt message once, the control message twice";
  const auto count_of = [](const CollectingSink& sink, const Bytes& message, std::size_t from) {
    return static_cast<std::size_t>(std::count(
        sink.messages.begin() + static_cast<std::ptrdiff_t>(from), sink.messages.end(), message));
  };
  EXPECT_EQ(count_of(at_first, bytes({'N', 'c'}), before_first), 1u);
  EXPECT_EQ(count_of(at_second, bytes({'N', 'c'}), before_second), 1u);
  const std::size_t to_first = count_of(at_first, bytes({'N', 'd'}), before_first);
  const std::size_t to_second = count_of(at_second, bytes({'N', 'd'}), before_second);
  EXPECT_EQ(to_first + to_second, dealt);
  EXPECT_LE(std::max(to_first, to_second) - std::min(to_first, to_second), 1u)
      << "PUSH deals in turn while no queue is full: " << to_first << " and " << to_second;
}

TEST(ZmqPushPull, RemovesItsOwnDealFileAtExit)
{
  const TemporaryDirectory directory;
  const std::string path = directory.file("p.ipc");
  {
    zeromq::ZmqEndpoint publisher(pushpull(settings_for(Role::publisher, "ipc://" + path, {})));
    EXPECT_TRUE(std::filesystem::exists(path + ".deal"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".deal"));
}

} // namespace
} // namespace netprof
