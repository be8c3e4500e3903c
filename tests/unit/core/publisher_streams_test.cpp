// A subscriber of several publishers: its sessions' results made one report.

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
  result.report.success = success;
  result.report.problems = std::move(problems);
  result.report.end_received = success;
  SubscriberResult self;
  self.id = 2;
  self.counters.received = received;
  result.report.self = self;
  return result;
}

TEST(PublisherStreams, EachPublishersFiguresInOrderAndPublisherZerosAbove)
{
  std::vector<RoleResult> streams;
  streams.push_back(stream_result(1'000, true, ExitStatus::passed));
  streams.push_back(stream_result(900, true, ExitStatus::passed));
  const RoleResult merged = merged_publisher_streams(std::move(streams));
  ASSERT_EQ(merged.report.per_publisher.size(), 2u);
  EXPECT_EQ(merged.report.per_publisher[0].publisher, 0u);
  EXPECT_EQ(merged.report.per_publisher[1].publisher, 1u);
  EXPECT_EQ(merged.report.per_publisher[1].figures.counters.received, 900u);
  EXPECT_EQ(merged.report.self->counters.received, 1'000u);
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
  missing.report.problems = {"no publisher was heard within --wait 2 s"};
  streams.push_back(std::move(missing));
  const RoleResult merged = merged_publisher_streams(std::move(streams));
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
  const RoleResult merged = merged_publisher_streams(std::move(streams));
  EXPECT_EQ(merged.status, ExitStatus::interrupted);
  ASSERT_FALSE(merged.report.problems.empty());
  EXPECT_EQ(merged.report.problems[0], "publisher 0: lost 90%");
}

} // namespace
} // namespace netprof
