// A process of several streams (--publishers, --topics): its sessions' results made one report.

#include "core/roles/publisher_streams.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace netprof {
namespace {

RoleResult stream_result(std::uint64_t received, bool success, ExitStatus status,
                         std::vector<std::string> problems = {})
{
  RoleResult result;
  result.status = status;
  result.report.config.id = 2;
  result.report.config.role = Role::subscriber;
  result.report.success = success;
  result.report.problems = std::move(problems);
  result.report.end_received = success;
  SubscriberResult self;
  self.id = 2;
  self.counters.received = received;
  result.report.self = self;
  return result;
}

// Publishers 0, 1, ... with one topic each.
std::vector<StreamName> publishers(std::uint32_t count)
{
  std::vector<StreamName> names;
  for (std::uint32_t publisher = 0; publisher < count; ++publisher)
    names.push_back({publisher, 0});
  return names;
}

TEST(PublisherStreams, EachPublishersFiguresInOrderAndPublisherZerosAbove)
{
  std::vector<RoleResult> streams;
  streams.push_back(stream_result(1'000, true, ExitStatus::passed));
  streams.push_back(stream_result(900, true, ExitStatus::passed));
  const RoleResult merged = merged_streams(std::move(streams), publishers(2));
  ASSERT_EQ(merged.report.per_publisher.size(), 2u);
  EXPECT_EQ(merged.report.per_publisher[0].publisher, 0u);
  EXPECT_EQ(merged.report.per_publisher[1].publisher, 1u);
  EXPECT_EQ(merged.report.per_publisher[1].figures.counters.received, 900u);
  EXPECT_EQ(merged.report.self->counters.received, 1'000u);
  EXPECT_TRUE(merged.report.per_topic.empty());
  EXPECT_TRUE(merged.report.success);
  EXPECT_EQ(merged.status, ExitStatus::passed);
}

// A publisher that never came fails the run, and the problem says which one it was.
TEST(PublisherStreams, OneFailedStreamFailsTheRunAndIsNamed)
{
  std::vector<RoleResult> streams;
  streams.push_back(stream_result(1'000, true, ExitStatus::passed));
  RoleResult missing;
  missing.status = ExitStatus::runtime;
  missing.report.config.id = 2;
  missing.report.config.role = Role::subscriber;
  missing.report.problems = {"no publisher was heard within --wait 2 s"};
  streams.push_back(std::move(missing));
  const RoleResult merged = merged_streams(std::move(streams), publishers(2));
  EXPECT_FALSE(merged.report.success);
  EXPECT_EQ(merged.status, ExitStatus::runtime);
  ASSERT_EQ(merged.report.problems.size(), 1u);
  EXPECT_EQ(merged.report.problems[0], "publisher 1: no publisher was heard within --wait 2 s");
  EXPECT_EQ(merged.report.per_publisher[1].figures.id, 2u); // nothing came: its id all the same
  EXPECT_EQ(merged.report.per_publisher[1].figures.counters.received, 0u);
}

TEST(PublisherStreams, TheGravestStatusWins)
{
  std::vector<RoleResult> streams;
  streams.push_back(stream_result(10, false, ExitStatus::failed, {"lost 90%"}));
  streams.push_back(stream_result(10, false, ExitStatus::interrupted));
  streams.push_back(stream_result(10, false, ExitStatus::runtime));
  const RoleResult merged = merged_streams(std::move(streams), publishers(3));
  EXPECT_EQ(merged.status, ExitStatus::interrupted);
  ASSERT_FALSE(merged.report.problems.empty());
  EXPECT_EQ(merged.report.problems[0], "publisher 0: lost 90%");
}

// A stream is named by what tells it apart: its topic alone when there is one publisher.
TEST(PublisherStreams, AStreamIsNamedByWhatVaries)
{
  std::vector<RoleResult> streams;
  streams.push_back(stream_result(10, true, ExitStatus::passed));
  streams.push_back(stream_result(10, false, ExitStatus::failed, {"lost 1"}));
  EXPECT_EQ(merged_streams(streams, {{0, 0}, {0, 1}}).report.problems.at(0), "topic 1: lost 1");
  EXPECT_EQ(merged_streams(streams, {{0, 1}, {1, 0}}).report.problems.at(0),
            "publisher 1, topic 0: lost 1");
}

// A publisher of several topics lists each topic's figures as its own report gave them.
TEST(PublisherStreams, APublishersTopicsAreListedWithTheirOwnFigures)
{
  std::vector<RoleResult> streams(2);
  for (std::uint32_t topic = 0; topic < 2; ++topic) {
    RunReport& report = streams[topic].report;
    report.config.role = Role::publisher;
    report.success = true;
    report.messages_sent = 100 + topic;
    report.rtt.count = 10;
    report.rtt.p50_ns = 1'000 * (topic + 1);
    SubscriberResult subscriber;
    subscriber.id = 1;
    subscriber.counters.unique = 100 + topic;
    report.subscribers = {subscriber};
  }
  const RoleResult merged = merged_streams(std::move(streams), {{0, 0}, {0, 1}});
  ASSERT_EQ(merged.report.per_topic.size(), 2u);
  EXPECT_TRUE(merged.report.per_publisher.empty());
  EXPECT_EQ(merged.report.per_topic[1].topic, 1u);
  EXPECT_EQ(merged.report.per_topic[1].messages_sent, 101u);
  EXPECT_EQ(merged.report.per_topic[1].rtt.p50_ns, 2'000);
  EXPECT_EQ(merged.report.per_topic[1].subscribers.at(0).counters.unique, 101u);
  EXPECT_EQ(merged.report.messages_sent, 100u); // the report's own figures: topic 0's
}

} // namespace
} // namespace netprof
