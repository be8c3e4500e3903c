// --dds-history's spelling, keep-all's bound, a peer whose reliability DDS will not match, a
// subscriber's hello held until matched (those two as for fastdds: dds_family_endpoint_checks.hpp),
// and a stranger's samples. No timing assertions: every wait is bounded by a deadline only so
// nothing hangs.

#include "dds_endpoint.hpp"
#include "dds_message.h"
#include "dds_qos.hpp"

#include "support/dds_family_endpoint_checks.hpp"
#include "support/test_sinks.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using dds_family_testing::deadline_after;
using dds_family_testing::settings_for;
using dds_family_testing::unique_prefix;
using dds_parts::DdsEndpoint;
using dds_parts::QosChoice;

// --dds-history's value, as dds_family_options.cpp parses it (--fastdds-history's alike).
QosChoice::History parse_history(const std::string& text, std::int32_t& depth)
{
  return transport_common::parse_history(text, depth, "--dds-history");
}

TEST(DdsHistory, KeepLastTakesAnOptionalDepth)
{
  std::int32_t depth = 0;
  EXPECT_EQ(parse_history("keep-last", depth), QosChoice::History::keep_last);
  EXPECT_EQ(depth, QosChoice::default_depth);
  EXPECT_EQ(parse_history("keep-last:8", depth), QosChoice::History::keep_last);
  EXPECT_EQ(depth, 8);
  EXPECT_EQ(parse_history("keep-all", depth), QosChoice::History::keep_all);
}

TEST(DdsHistory, BadSpellingsAreRefusedNamingTheOption)
{
  std::int32_t depth = 0;
  for (const char* bad : {"keep-last:0", "keep-last:", "keep-last:x", "keep-last:8x",
                          "keep-last:-1", "keep-last:1000001", "keep-some", "", "keep-all:3"}) {
    try {
      parse_history(bad, depth);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--dds-history"), std::string::npos) << bad;
    }
  }
}

TEST(DdsHistory, DescribedAsTheOptionsSpellIt)
{
  QosChoice qos;
  EXPECT_EQ(netprof::dds_parts::describe(qos), "reliable, keep-last:16");
  qos.reliability = QosChoice::Reliability::best_effort;
  qos.history = QosChoice::History::keep_all;
  EXPECT_EQ(netprof::dds_parts::describe(qos), "best-effort, keep-all");
}

TEST(DdsKeepAll, MinusQBecomesSamplesWithinBounds)
{
  // -q in bytes against 100 B messages, and the samples a keep-all reader keeps (1024 for -q 0).
  for (const auto& [queue_bytes, samples] : {std::pair<std::size_t, std::int32_t>{0, 1024},
                                             {1000, 16},
                                             {100'000, 1000},
                                             {1'000'000'000, 65536}})
    EXPECT_EQ(dds_parts::keep_all_samples(queue_bytes, 100), samples) << queue_bytes;
}

TEST(DdsConfig, LoopbackIgnoresTheUsersUriAndSaysSoOtherwiseTheUriWins)
{
  const char* before = std::getenv("CYCLONEDDS_URI");
  const std::string kept = before != nullptr ? before : "";
  ::setenv("CYCLONEDDS_URI", "file:///etc/somewhere.xml", 1);
  std::string origin;
  const std::string loopback = netprof::dds_parts::domain_config(true, origin);
  EXPECT_EQ(loopback.find("somewhere"), std::string::npos);
  EXPECT_NE(loopback.find("<NetworkInterface name=\"lo\"/>"), std::string::npos);
  EXPECT_NE(loopback.find("<AllowMulticast>false</AllowMulticast>"), std::string::npos);
  EXPECT_NE(origin.find("CYCLONEDDS_URI is set and ignored"), std::string::npos) << origin;
  const std::string users = netprof::dds_parts::domain_config(false, origin);
  EXPECT_EQ(users.rfind("file:///etc/somewhere.xml,", 0), 0u) << users;
  EXPECT_NE(users.find("MaxSampleSize"), std::string::npos);
  EXPECT_EQ(users.find("AllowMulticast"), std::string::npos);
  EXPECT_NE(origin.find("CYCLONEDDS_URI=file:///etc/somewhere.xml"), std::string::npos);
  ::unsetenv("CYCLONEDDS_URI");
  netprof::dds_parts::domain_config(false, origin);
  EXPECT_NE(origin.find("Cyclone's defaults"), std::string::npos);
  if (before != nullptr)
    ::setenv("CYCLONEDDS_URI", kept.c_str(), 1);
}

TEST(DdsConfig, AnInterfaceKeepsCycloneOnItAndIgnoresTheUsersUri)
{
  const char* before = std::getenv("CYCLONEDDS_URI");
  const std::string kept = before != nullptr ? before : "";
  ::setenv("CYCLONEDDS_URI", "file:///etc/somewhere.xml", 1);
  std::string origin;
  const std::string config = netprof::dds_parts::domain_config(
      false, origin, netprof::transport_common::DdsInterface{"eth0", "10.77.0.2"});
  EXPECT_EQ(config.find("somewhere"), std::string::npos);
  EXPECT_NE(config.find("<Interfaces><NetworkInterface address=\"10.77.0.2\"/></Interfaces>"),
            std::string::npos)
      << config;
  EXPECT_NE(config.find("MaxSampleSize"), std::string::npos);
  EXPECT_EQ(origin, "--dds-interface: Cyclone on eth0 (10.77.0.2) only, multicast discovery on "
                    "it (CYCLONEDDS_URI is set and ignored)");
  ::unsetenv("CYCLONEDDS_URI");
  if (before != nullptr)
    ::setenv("CYCLONEDDS_URI", kept.c_str(), 1);
}

TEST(DdsQos, AReliableSubscriberAgainstABestEffortPublisherIsNamedOnBothSides)
{
  dds_family_testing::expect_reliability_mismatch_named_on_both_sides<DdsEndpoint>(
      "--dds-reliability");
}

TEST(DdsDiscovery, ASubscriberHoldsItsHelloUntilMatchedThenDiscoveryIsTimed)
{
  dds_family_testing::expect_hello_held_until_matched<DdsEndpoint>(
      [](const DdsEndpoint& publisher) {
        EXPECT_TRUE(publisher.facts().discovery_seconds) << "one subscriber was expected and came";
      });
}

TEST(DdsListener, WakesTheWaitingCoreOnlyWhenItsSinkAsks)
{
  dds_family_testing::expect_listener_wakes_only_when_asked<DdsEndpoint>(false);
  dds_family_testing::expect_listener_wakes_only_when_asked<DdsEndpoint>(true);
}

// A stranger in the same domain writes samples of every size to both topics: the endpoints
// hand each over as bytes (the core judges them) and keep working.
TEST(DdsStranger, GarbageSamplesAreDeliveredAsBytesAndTheRunGoesOn)
{
  const std::string prefix = unique_prefix("stranger");
  DdsEndpoint publisher(settings_for(Role::publisher, prefix, QosChoice{}));
  DdsEndpoint subscriber(settings_for(Role::subscriber, prefix, QosChoice{}));

  const dds_entity_t stranger = dds_create_participant(0, nullptr, nullptr);
  ASSERT_GT(stranger, 0);
  const dds_entity_t topic = dds_create_topic(stranger, &netprof_dds_Message_desc,
                                              (prefix + "_data").c_str(), nullptr, nullptr);
  ASSERT_GT(topic, 0);
  dds_qos_t* qos = netprof::dds_parts::make_qos(QosChoice{}, 16);
  const dds_entity_t writer = dds_create_writer(stranger, topic, qos, nullptr);
  dds_delete_qos(qos);
  ASSERT_GT(writer, 0);
  const auto deadline = Clock::now() + deadline_after;
  dds_publication_matched_status_t matched{};
  while (matched.current_count == 0 && Clock::now() < deadline) {
    dds_get_publication_matched_status(writer, &matched);
    netprof::testing::CountingSink ignored;
    subscriber.receive(ignored, 1ms);
  }
  ASSERT_GT(matched.current_count, 0u);

  std::mt19937 random(7);
  std::vector<std::uint8_t> bytes(4096);
  for (auto& byte : bytes)
    byte = static_cast<std::uint8_t>(random());
  std::size_t written = 0;
  for (std::uint32_t size : {0u, 1u, 7u, 51u, 52u, 53u, 4096u}) {
    netprof_dds_Message sample{};
    sample.bytes._buffer = bytes.data();
    sample.bytes._length = size;
    sample.bytes._maximum = size;
    ASSERT_EQ(dds_write(writer, &sample), DDS_RETCODE_OK);
    ++written;
  }
  netprof::testing::CollectingSink sink;
  while (sink.messages.size() < written && Clock::now() < deadline)
    ASSERT_NE(subscriber.receive(sink, 10ms), ReceiveResult::failed);
  ASSERT_EQ(sink.messages.size(), written);
  EXPECT_TRUE(sink.messages.front().empty());
  EXPECT_EQ(sink.messages.back().size(), 4096u);
  dds_delete(stranger);

  // The real publisher still reaches the subscriber afterwards.
  const std::byte marker[8]{std::byte{1}, std::byte{2}};
  ASSERT_EQ(publisher.send(marker).result, SendResult::sent);
  netprof::testing::CollectingSink after;
  while (after.messages.empty() && Clock::now() < deadline)
    ASSERT_NE(subscriber.receive(after, 10ms), ReceiveResult::failed);
  ASSERT_EQ(after.messages.size(), 1u);
  EXPECT_EQ(after.messages.front().size(), sizeof marker);
}

} // namespace
} // namespace netprof
