#pragma once

// What the unit tests of both DDS transports (dds: Cyclone, fastdds: Fast DDS) check of an
// endpoint alike, over two endpoints of the same vendor on
// loopback: a peer whose reliability DDS will not match is named on both sides, and a subscriber
// holds its hello until matched. Templates over the vendor's endpoint class; no vendor's API.
// No timing assertions: every wait is bounded by a deadline only so nothing hangs.

#include "common/dds_endpoint_settings.hpp"

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <random>
#include <string>

namespace netprof::dds_family_testing {

using namespace std::chrono_literals;
using transport_common::DdsEndpointSettings;
using transport_common::QosChoice;

inline constexpr auto deadline_after = 10s;

// Topics no other test run shares.
inline std::string unique_prefix(const std::string& what)
{
  std::random_device random;
  return "netprof_test_" + what + "_" + std::to_string(random()) + std::to_string(random());
}

inline DdsEndpointSettings settings_for(Role role, const std::string& prefix, QosChoice qos)
{
  DdsEndpointSettings settings;
  settings.role = role;
  settings.topic_prefix = prefix;
  settings.loopback = true;
  settings.qos = qos;
  settings.header_bytes = 52;
  settings.message_bytes = 52 + 64;
  settings.subscribers = 1;
  return settings;
}

// Receives on both until each has failed, or the deadline passes.
template <typename VendorEndpoint> void until_both_fail(VendorEndpoint& a, VendorEndpoint& b)
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

template <typename VendorEndpoint> std::string joined_diagnoses(const VendorEndpoint& endpoint)
{
  std::string all;
  for (const std::string& diagnosis : endpoint.facts().diagnoses)
    all += diagnosis + "\n";
  return all;
}

// A best-effort publisher and a reliable subscriber: each names the mismatch, the subscriber's
// with `reliability_option` (what to give every process), and the subscriber's hello is refused
// rather than sent into a topic nobody matched.
template <typename VendorEndpoint>
void expect_reliability_mismatch_named_on_both_sides(const std::string& reliability_option)
{
  const std::string prefix = unique_prefix("qos");
  QosChoice best_effort;
  best_effort.reliability = QosChoice::Reliability::best_effort;
  VendorEndpoint publisher(settings_for(Role::publisher, prefix, best_effort));
  VendorEndpoint subscriber(settings_for(Role::subscriber, prefix, QosChoice{}));

  until_both_fail(publisher, subscriber);
  const std::string at_publisher = joined_diagnoses(publisher);
  const std::string at_subscriber = joined_diagnoses(subscriber);
  EXPECT_NE(at_publisher.find("a subscriber is reliable and this publisher best-effort"),
            std::string::npos)
      << at_publisher;
  EXPECT_NE(at_subscriber.find("the publisher is best-effort and this subscriber reliable"),
            std::string::npos)
      << at_subscriber;
  EXPECT_NE(at_subscriber.find(reliability_option), std::string::npos) << at_subscriber;
  const std::byte hello[16]{};
  EXPECT_EQ(subscriber.send(hello).result, SendResult::failed);
}

// A subscriber alone holds its hello back (connecting) and explains the unfinished discovery;
// once a publisher comes, the hello goes, discovery is timed, and the publisher gets it whole.
// `then_check(publisher)` adds what a vendor's test checks of the publisher afterwards.
template <typename VendorEndpoint, typename ThenCheck>
void expect_hello_held_until_matched(ThenCheck then_check)
{
  const std::string prefix = unique_prefix("discovery");
  VendorEndpoint subscriber(settings_for(Role::subscriber, prefix, QosChoice{}));
  const std::byte hello[16]{std::byte{7}};
  const SendOutcome held = subscriber.send(hello);
  EXPECT_EQ(held.result, SendResult::back_pressured) << "no publisher exists yet";
  EXPECT_EQ(held.cause, SendCause::connecting);
  EXPECT_FALSE(subscriber.facts().discovery_seconds);
  EXPECT_FALSE(subscriber.facts().diagnoses.empty()) << "an unfinished discovery is explained";

  VendorEndpoint publisher(settings_for(Role::publisher, prefix, QosChoice{}));
  const auto deadline = Clock::now() + deadline_after;
  SendResult sent = SendResult::back_pressured;
  while (sent == SendResult::back_pressured && Clock::now() < deadline)
    sent = subscriber.send(hello).result;
  ASSERT_EQ(sent, SendResult::sent);
  ASSERT_TRUE(subscriber.facts().discovery_seconds);
  EXPECT_GE(*subscriber.facts().discovery_seconds, 0.0);

  netprof::testing::CollectingSink sink;
  while (sink.messages.empty() && Clock::now() < deadline)
    ASSERT_NE(publisher.receive(sink, 10ms), ReceiveResult::failed);
  ASSERT_EQ(sink.messages.size(), 1u) << "the first hello was lost";
  ASSERT_EQ(sink.messages.front().size(), sizeof hello);
  EXPECT_EQ(sink.messages.front().front(), std::byte{7});
  then_check(publisher);
}

} // namespace netprof::dds_family_testing
