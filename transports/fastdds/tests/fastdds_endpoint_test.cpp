// FastDdsEndpoint on loopback: the loopback profile keeps to 127.0.0.1 without shared memory or
// multicast, --fastdds-history's spelling, a subscriber holds its hello until matched, and a
// peer whose reliability DDS will not match is named on both sides. No timing assertions: every
// wait is bounded by a deadline only so nothing hangs.

#include "fastdds_endpoint.hpp"

#include "support/test_sinks.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>

#include <chrono>
#include <random>
#include <string>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using fastdds_parts::EndpointSettings;
using fastdds_parts::FastDdsEndpoint;
using fastdds_parts::QosChoice;

constexpr auto deadline_after = 10s;

std::string unique_prefix(const std::string& what)
{
  std::random_device random;
  return "netprof_test_" + what + "_" + std::to_string(random()) + std::to_string(random());
}

EndpointSettings settings_for(Role role, const std::string& prefix, QosChoice qos)
{
  EndpointSettings settings;
  settings.role = role;
  settings.topic_prefix = prefix;
  settings.loopback = true;
  settings.qos = qos;
  settings.header_bytes = 52;
  settings.message_bytes = 52 + 64;
  settings.subscribers = 1;
  return settings;
}

TEST(FastDdsHistory, IsSpelledAsDdsHistoryAndNamesItsOption)
{
  std::int32_t depth = 0;
  EXPECT_EQ(fastdds_parts::parse_history("keep-last:8", depth), QosChoice::History::keep_last);
  EXPECT_EQ(depth, 8);
  EXPECT_EQ(fastdds_parts::parse_history("keep-all", depth), QosChoice::History::keep_all);
  try {
    fastdds_parts::parse_history("keep-last:0", depth);
    FAIL() << "keep-last:0 was taken";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--fastdds-history"), std::string::npos);
  }
}

TEST(FastDdsLoopback, UsesUdpOn127001AloneWithUnicastDiscovery)
{
  const auto qos = fastdds_parts::loopback_participant_qos();
  EXPECT_FALSE(qos.transport().use_builtin_transports) << "no shared memory, no other interface";
  ASSERT_EQ(qos.transport().user_transports.size(), 1u);
  const auto* udp = dynamic_cast<const eprosima::fastdds::rtps::UDPv4TransportDescriptor*>(
      qos.transport().user_transports.front().get());
  ASSERT_NE(udp, nullptr);
  EXPECT_EQ(udp->interfaceWhiteList, std::vector<std::string>{"127.0.0.1"});
  const auto& builtin = qos.wire_protocol().builtin;
  EXPECT_FALSE(builtin.initialPeersList.empty());
  EXPECT_TRUE(builtin.metatrafficMulticastLocatorList.empty());
  EXPECT_FALSE(builtin.metatrafficUnicastLocatorList.empty()) << "so no multicast is added";
}

// Receives on both until each has failed, or the deadline passes.
void until_both_fail(FastDdsEndpoint& a, FastDdsEndpoint& b)
{
  netprof::testing::CollectingSink sink;
  bool a_failed = false;
  bool b_failed = false;
  const auto deadline = Clock::now() + deadline_after;
  while ((!a_failed || !b_failed) && Clock::now() < deadline) {
    a_failed = a_failed || a.receive(sink, 10ms) == ReceiveResult::failed;
    b_failed = b_failed || b.receive(sink, 10ms) == ReceiveResult::failed;
  }
  EXPECT_TRUE(a_failed) << "the publisher never noticed";
  EXPECT_TRUE(b_failed) << "the subscriber never noticed";
}

std::string joined_diagnoses(const FastDdsEndpoint& endpoint)
{
  std::string all;
  for (const std::string& diagnosis : endpoint.facts().diagnoses)
    all += diagnosis + "\n";
  return all;
}

TEST(FastDdsQos, AReliableSubscriberAgainstABestEffortPublisherIsNamedOnBothSides)
{
  const std::string prefix = unique_prefix("qos");
  QosChoice best_effort;
  best_effort.reliability = QosChoice::Reliability::best_effort;
  FastDdsEndpoint publisher(settings_for(Role::publisher, prefix, best_effort));
  FastDdsEndpoint subscriber(settings_for(Role::subscriber, prefix, QosChoice{}));

  until_both_fail(publisher, subscriber);
  const std::string at_publisher = joined_diagnoses(publisher);
  const std::string at_subscriber = joined_diagnoses(subscriber);
  EXPECT_NE(at_publisher.find("a subscriber is reliable and this publisher best-effort"),
            std::string::npos)
      << at_publisher;
  EXPECT_NE(at_subscriber.find("the publisher is best-effort and this subscriber reliable"),
            std::string::npos)
      << at_subscriber;
  const std::byte hello[16]{};
  EXPECT_EQ(subscriber.send(hello).result, SendResult::failed);
}

TEST(FastDdsDiscovery, ASubscriberHoldsItsHelloUntilMatchedAndItArrives)
{
  const std::string prefix = unique_prefix("discovery");
  FastDdsEndpoint subscriber(settings_for(Role::subscriber, prefix, QosChoice{}));
  const std::byte hello[16]{std::byte{7}};
  const SendOutcome held = subscriber.send(hello);
  EXPECT_EQ(held.result, SendResult::back_pressured) << "no publisher exists yet";
  EXPECT_EQ(held.cause, SendCause::connecting);
  EXPECT_FALSE(subscriber.facts().diagnoses.empty()) << "an unfinished discovery is explained";

  FastDdsEndpoint publisher(settings_for(Role::publisher, prefix, QosChoice{}));
  const auto deadline = Clock::now() + deadline_after;
  SendResult sent = SendResult::back_pressured;
  while (sent == SendResult::back_pressured && Clock::now() < deadline)
    sent = subscriber.send(hello).result;
  ASSERT_EQ(sent, SendResult::sent);
  ASSERT_TRUE(subscriber.facts().discovery_seconds);

  netprof::testing::CollectingSink sink;
  while (sink.messages.empty() && Clock::now() < deadline)
    ASSERT_NE(publisher.receive(sink, 10ms), ReceiveResult::failed);
  ASSERT_EQ(sink.messages.size(), 1u) << "the first hello was lost";
  ASSERT_EQ(sink.messages.front().size(), sizeof hello);
  EXPECT_EQ(sink.messages.front().front(), std::byte{7});
}

} // namespace
} // namespace netprof
