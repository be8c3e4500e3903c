// Publisher 0 run by hand judges the run by every publisher's report: one that failed or never
// came fails it and is named, and its place in publishers[] says what is known.

#include "core/process/publisher_reports.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

namespace {

using namespace netprof;
using nlohmann::json;

json report(std::uint32_t id, const char* status, std::uint64_t sent,
            std::vector<std::string> problems = {})
{
  return json{{"settings", {{"id", id}, {"publishers", 3}}},
              {"result", {{"status", status}, {"problems", problems}}},
              {"publisher",
               {{"messages_sent", sent},
                {"latency", {{"rtt_ns", {{"count", 10}, {"p50", 15200.0}, {"p99", 40100.0}}}}}}},
              {"subscribers", json::array({{{"id", 3}, {"received", sent}, {"lost", 0}}})}};
}

RelayedReport relayed(std::uint32_t id, const json& body)
{
  return {id, body.dump()};
}

TEST(RelayedReports, EveryPublisherThatPassedMakesALineAndNoProblem)
{
  const RelayedVerdict verdict = judge_relayed_reports(
      report(0, "SUCCESS", 1000),
      {relayed(1, report(1, "SUCCESS", 1200)), relayed(2, report(2, "SUCCESS", 12345))}, 3,
      "never came");
  EXPECT_TRUE(verdict.problems.empty());
  EXPECT_FALSE(verdict.missing);
  ASSERT_EQ(verdict.entries.size(), 3u);
  EXPECT_EQ(verdict.entries[2]["publisher"]["messages_sent"], 12345);
  EXPECT_EQ(verdict.lines[2], "2: SUCCESS; 12,345 sent, RTT p50 15.2 us, p99 40.1 us; "
                              "subscriber 3: 12,345 received, 0 lost");
}

TEST(RelayedReports, AFailedPublisherIsNamedWithItsFirstProblem)
{
  const RelayedVerdict verdict = judge_relayed_reports(
      report(0, "SUCCESS", 1000),
      {relayed(1, report(1, "FAIL", 0, {"waited 10 s for 1 subscriber(s)", "other"})),
       relayed(2, report(2, "SUCCESS", 5))},
      3, "never came");
  EXPECT_EQ(verdict.problems,
            std::vector<std::string>{"publisher 1: FAIL: waited 10 s for 1 subscriber(s)"});
  EXPECT_FALSE(verdict.missing);
  EXPECT_EQ(verdict.lines[1].rfind("1: FAIL: waited 10 s for 1 subscriber(s); 0 sent", 0), 0u)
      << verdict.lines[1];
}

TEST(RelayedReports, AMissingReportIsNamedAndItsEntryIsNull)
{
  const RelayedVerdict verdict = judge_relayed_reports(
      report(0, "SUCCESS", 1000), {relayed(2, report(2, "SUCCESS", 5))}, 3, "never came");
  EXPECT_EQ(verdict.problems, std::vector<std::string>{"publisher 1: never came"});
  EXPECT_TRUE(verdict.missing);
  EXPECT_EQ(
      verdict.entries[1],
      (json{{"id", 1}, {"result", nullptr}, {"publisher", nullptr}, {"subscribers", nullptr}}));
  EXPECT_EQ(verdict.lines[1], "1: never came");
}

TEST(RelayedReports, AReportOfAnotherRunOrNotAReportAtAllIsNotTakenForOne)
{
  // Sent as publisher 2's of a run of 3: publisher 1's report, one of a run of 4 publishers,
  // and what is no report.
  json of_four = report(2, "SUCCESS", 5);
  of_four["settings"]["publishers"] = 4;
  json without_result = report(2, "SUCCESS", 5);
  without_result.erase("result");
  for (const std::string& body :
       {std::string("not json"), std::string("[]"), report(1, "SUCCESS", 5).dump(), of_four.dump(),
        without_result.dump()}) {
    const RelayedVerdict verdict = judge_relayed_reports(
        report(0, "SUCCESS", 1), {relayed(1, report(1, "SUCCESS", 5)), {2, body}}, 3, "x");
    ASSERT_EQ(verdict.problems.size(), 1u) << body;
    EXPECT_EQ(verdict.problems[0], "publisher 2: its report reached publisher 0 but is not a "
                                   "netprof publisher report of this run");
    EXPECT_TRUE(verdict.missing);
    EXPECT_TRUE(verdict.entries[2]["result"].is_null());
  }
}

TEST(LeadAddress, HostAndPortOrThisHostsDefaultNamedAfterTheRun)
{
  const LeadAddress tcp = lead_address("10.0.0.1:4200", "tcp 127.0.0.1:5000");
  EXPECT_TRUE(tcp.tcp);
  EXPECT_EQ(tcp.host, "10.0.0.1");
  EXPECT_EQ(tcp.port, "4200");
  const LeadAddress v6 = lead_address("[::1]:4200", "");
  EXPECT_EQ(v6.host, "::1");
  const LeadAddress one = lead_address("", "tcp 127.0.0.1:5000");
  EXPECT_FALSE(one.tcp);
  EXPECT_EQ(one.text.rfind("@netprof-lead-", 0), 0u);
  EXPECT_EQ(one.text, lead_address("", "tcp 127.0.0.1:5000").text);
  EXPECT_NE(one.text, lead_address("", "tcp 127.0.0.1:5001").text);
}

TEST(LeadAddress, AMalformedLeadIsAUsageError)
{
  for (const char* bad : {"4200", "host:", ":4200", "host:0", "host:65536", "host:42x", "[]:1"})
    EXPECT_THROW(lead_address(bad, ""), UsageError) << bad;
}

} // namespace
