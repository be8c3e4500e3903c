#pragma once

// What the unit tests of both DDS transports (dds: Cyclone, fastdds: Fast DDS) check of an
// endpoint alike, over two endpoints of the same vendor on
// loopback: a peer whose reliability DDS will not match is named on both sides, a subscriber
// holds its hello until matched, and a listener wakes the waiting core only when the sink asks.
// Templates over the vendor's endpoint class; no vendor's API.
// No timing assertions: every wait is bounded by a deadline only so nothing hangs.

#include "common/dds_endpoint_settings.hpp"

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <random>
#include <regex>
#include <string>
#include <thread>

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

// Counts what it is handed and answers MessageSink::wants_control with `wants`. Its count is
// written by the listener only while the sink is lent, and read between receives.
class ControlAskingSink final : public MessageSink {
public:
  explicit ControlAskingSink(bool wants) : m_wants(wants) {}
  void on_message(const Delivery& /*delivery*/) noexcept override { ++count; }
  bool wants_control() noexcept override { return m_wants; }

  std::size_t count = 0;

private:
  const bool m_wants;
};

// The listener note's figures: samples handed over on the vendor's thread, samples in all, and
// the core's wake-ups. Fails the test when the note is missing.
struct ListenerFigures {
  std::size_t handed = 0;
  std::size_t delivered = 0;
  std::size_t wakes = 0;
};

template <typename VendorEndpoint> ListenerFigures listener_figures(const VendorEndpoint& endpoint)
{
  const std::regex note(
      R"((\d+) of (\d+) samples handed over on .* woke netprof's thread (\d+) times)");
  std::string notes;
  for (const std::string& text : endpoint.facts().notes) {
    std::smatch found;
    if (std::regex_search(text, found, note))
      return {std::stoul(found[1]), std::stoul(found[2]), std::stoul(found[3])};
    notes += text + "\n";
  }
  ADD_FAILURE() << "no listener note among:\n" << notes;
  return {};
}

// With --VENDOR-notify listener, samples that come while the core waits in receive() are handed
// to its sink on the vendor's thread, and the core is woken after each hand-over only when the
// sink asks for control: a sink that only counts (a subscriber's data) sleeps through a stream,
// one that asks is woken.
template <typename VendorEndpoint> void expect_listener_wakes_only_when_asked(bool wants)
{
  const std::string prefix = unique_prefix(wants ? "listener_wakes" : "listener_sleeps");
  DdsEndpointSettings listening = settings_for(Role::subscriber, prefix, QosChoice{});
  listening.notify = transport_common::DdsNotify::listener;
  VendorEndpoint subscriber(listening);
  VendorEndpoint publisher(settings_for(Role::publisher, prefix, QosChoice{}));
  const auto deadline = Clock::now() + deadline_after;
  // Each side matches the other's entities on its own. A sample written before the subscriber's
  // reader matched the writer is not taken by that volatile reader, and the keep-last writer
  // resends only its depth's newest once it is (16 of 50 arrived, 1 run in 8 beside another DDS
  // test). A real run writes data only after the subscriber's hello, sent once its side matched.
  netprof::testing::CountingSink nothing_sent_yet;
  while ((!publisher.discovered() || !subscriber.discovered()) && Clock::now() < deadline) {
    EXPECT_NE(publisher.receive(nothing_sent_yet, 10ms), ReceiveResult::failed);
    EXPECT_NE(subscriber.receive(nothing_sent_yet, 10ms), ReceiveResult::failed);
  }
  EXPECT_TRUE(publisher.discovered() && subscriber.discovered()) << "discovery never completed";

  constexpr std::size_t messages = 50;
  std::atomic<bool> stop{false};
  std::thread sender([&] {
    const std::byte message[64]{std::byte{1}};
    for (std::size_t sent = 0; sent < messages && !stop;) {
      if (publisher.send(message).result == SendResult::sent)
        ++sent;
      std::this_thread::sleep_for(1ms); // most come while the core waits in receive()
    }
  });
  ControlAskingSink sink(wants);
  while (sink.count < messages && Clock::now() < deadline)
    if (subscriber.receive(sink, 20ms) == ReceiveResult::failed)
      break;
  stop = true;
  sender.join();
  EXPECT_EQ(sink.count, messages);
  const ListenerFigures figures = listener_figures(subscriber);
  EXPECT_EQ(figures.delivered, sink.count);
  EXPECT_GT(figures.handed, 0u) << "the core waited in receive() nearly all the time";
  if (wants)
    EXPECT_GT(figures.wakes, 0u) << "a sink that asks for control is woken";
  else
    EXPECT_EQ(figures.wakes, 0u) << "a sink that only counts is never woken";
}

} // namespace netprof::dds_family_testing
