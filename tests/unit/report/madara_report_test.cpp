#include <netprof/report.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>

// --format madara: MADARA network_profiler's layout, as the scripts that parse it read it
// (tests/transports/network_profiler.cpp in MADARA: "Test: SUCCESS", Settings, Latency Min/Avg/
// Max in integer ns, Throughput in packets/s and B/s, "Test: FAIL.").

namespace netprof {
namespace {

bool shows(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// One section of the report: its heading line and the indented lines under it.
std::string section(const std::string& text, const std::string& heading)
{
  const std::size_t start = text.find(heading + "\n");
  if (start == std::string::npos)
    return "(no " + heading + ")";
  std::size_t end = text.find('\n', start) + 1;
  while (end < text.size() && text[end] == ' ')
    end = text.find('\n', end) + 1;
  return text.substr(start, end - start);
}

// The report as --format madara prints it.
std::string madara_text_of(const RunReport& report)
{
  std::ostringstream out;
  write_madara_report(out, report);
  return out.str();
}

LatencySummary latency(std::int64_t min, double mean, std::int64_t max)
{
  return {.count = 2'000, .min_ns = min, .max_ns = max, .mean_ns = mean};
}

// What one subscriber counted: 2,000 messages of 128 B over 1.9996 s of its clock.
SubscriberResult counted(std::uint32_t id)
{
  SubscriberResult sub;
  sub.id = id;
  sub.counters_received = true;
  sub.counters = {.received = 2'000,
                  .unique = 2'000,
                  .payload_bytes = 2'000ULL * 128,
                  .first_to_last_ns = 1'999'600'000};
  sub.throughput = compute_throughput(sub.counters);
  return sub;
}

RunConfig role_config(Role role, std::uint32_t id)
{
  RunConfig config;
  config.role = role;
  config.id = id;
  config.transport_name = "udp";
  config.test_seconds = 2.5;
  return config;
}

EndpointFacts endpoint_facts(std::string own, std::string peer)
{
  EndpointFacts facts;
  facts.local_addresses = {std::move(own)};
  facts.peer_addresses = {std::move(peer)};
  return facts;
}

RunReport subscriber_report()
{
  RunReport report;
  report.config = role_config(Role::subscriber, 1);
  report.endpoint = endpoint_facts("127.0.0.1:30001", "127.0.0.1:30000");
  report.success = true;
  report.end_received = true;
  report.self = counted(1);
  report.self->one_way = latency(9'799, 58'324.4, 325'363);
  return report;
}

RunReport publisher_report()
{
  RunReport report = subscriber_report();
  report.self.reset();
  report.config = role_config(Role::publisher, 0);
  report.endpoint = endpoint_facts("127.0.0.1:30000", "127.0.0.1:30001");
  report.rtt = latency(20'001, 45'678.5, 4'560'001);
  report.subscribers = {counted(1)};
  report.measured_seconds = 2.5;
  return report;
}

TEST(MadaraReport, SubscriberPrintsMadarasLayoutLineForLine)
{
  EXPECT_EQ(madara_text_of(subscriber_report()),
            "Test: SUCCESS\n"
            "Settings:\n"
            "  Transport type: UDP\n"
            "  Buffer size: 1000000 B\n"
            "  Hosts: \n"
            "    127.0.0.1:30001\n"
            "    127.0.0.1:30000\n"
            "  Data size: 128 B\n"
            "  Test time: 2.5 s\n"
            "  Num vars: 1\n"
            "Latency:\n"
            "  Min: 9799 ns\n"
            "  Avg: 58324 ns\n"
            "  Max: 325363 ns\n"
            "Throughput:\n"
            "  Messages received: 2000\n"
            "  Message rate: 999.7 packets/s\n"
            "  Data received: 256000 B\n"
            "  Data rate: 127961.592 B/s\n"
            "Notes (netprof):\n"
            "  - latency is this subscriber's receive time minus the publisher's send stamp: "
            "valid only when publisher and subscriber share a host's clock; not comparable "
            "across hosts\n"
            "  - rates are on each subscriber's clock, from its first to its last message\n");
}

TEST(MadaraReport, PublisherLatencyIsHalfTheRoundTripInWholeNanoseconds)
{
  const std::string text = madara_text_of(publisher_report());
  EXPECT_EQ(section(text, "Latency:"), "Latency:\n"
                                       "  Min: 10001 ns\n"
                                       "  Avg: 22839 ns\n"
                                       "  Max: 2280001 ns\n");
  EXPECT_TRUE(shows(text, "  - latency is half the round trip (RTT/2)")) << text;
}

TEST(MadaraReport, PublisherAddsUpItsSubscribersThroughput)
{
  RunReport sut = publisher_report();
  sut.subscribers.push_back(counted(2));
  sut.subscribers.push_back(counted(3));
  sut.subscribers.back().counters_received = false; // it vanished: its counters never came

  EXPECT_EQ(section(madara_text_of(sut), "Throughput:"), "Throughput:\n"
                                                         "  Messages received: 4000\n"
                                                         "  Message rate: 1999.4 packets/s\n"
                                                         "  Data received: 512000 B\n"
                                                         "  Data rate: 255923.185 B/s\n");
  EXPECT_TRUE(shows(madara_text_of(sut), "  - throughput adds up 2 subscribers' figures\n"));
}

TEST(MadaraReport, FailGivesItsReasonsFirstThenMadarasLineWithItsPeriod)
{
  RunReport sut = subscriber_report();
  sut.success = false;
  sut.problems = {"no measured data was received"};
  sut.self = SubscriberResult{};
  const std::string text = madara_text_of(sut);
  EXPECT_EQ(text.rfind("no measured data was received\nTest: FAIL.\nSettings:\n", 0), 0u) << text;
  // No figure is no line, rather than a 0 ns a script would believe.
  EXPECT_TRUE(shows(text, "Latency:\nThroughput:\n  Messages received: 0\n")) << text;
}

TEST(MadaraReport, InterruptedIsNeitherSuccessNorFail)
{
  RunReport sut = subscriber_report();
  sut.success = false;
  sut.interrupted = true;
  sut.problems = {"interrupted by a signal"};
  const std::string text = madara_text_of(sut);
  EXPECT_EQ(text.rfind("Test: INTERRUPTED (partial results)\nSettings:\n", 0), 0u) << text;
  EXPECT_TRUE(shows(text, "  - interrupted by a signal\n")) << text;
}

TEST(MadaraReport, NumbersArePlainForScripts)
{
  RunReport sut = subscriber_report();
  sut.self->counters.received = 12'345'678;
  sut.self->counters.unique = 12'345'678;
  sut.self->counters.payload_bytes = 12'345'678ULL * 1'000'000;
  sut.self->counters.first_to_last_ns = 1'000'000'000;
  sut.self->throughput = compute_throughput(sut.self->counters);
  sut.self->one_way = latency(1'500'000'000, 2.5e9, 3'000'000'001);
  const std::string text = madara_text_of(sut);

  EXPECT_EQ(section(text, "Latency:"),
            "Latency:\n  Min: 1500000000 ns\n  Avg: 2500000000 ns\n  Max: 3000000001 ns\n");
  const std::string throughput = "Throughput:\n"
                                 "  Messages received: 12345678\n"
                                 "  Message rate: 12345677 packets/s\n"
                                 "  Data received: 12345678000000 B\n"
                                 "  Data rate: 1234567";
  EXPECT_EQ(section(text, "Throughput:").substr(0, throughput.size()), throughput);
  // No thousands separator, no exponent, no prefix anywhere a script reads a number.
  const std::string figures = text.substr(0, text.find("Notes (netprof):"));
  for (const char* forbidden : {",", "e+", " MB", " k"})
    EXPECT_FALSE(shows(figures, forbidden)) << forbidden << " in\n" << text;
}

TEST(MadaraReport, TransportsHaveMadarasNames)
{
  RunReport sut = subscriber_report();
  // MADARA's names (madara::transport::types_to_string); shm it had not: netprof's name.
  for (const auto& [netprof, madara] : {std::pair{"udp", "UDP"},
                                        {"multicast", "UDP Multicast"},
                                        {"broadcast", "UDP Broadcast"},
                                        {"zmq", "0MQ"},
                                        {"shm", "shm"}}) {
    sut.config.transport_name = netprof;
    EXPECT_TRUE(shows(madara_text_of(sut), std::string("  Transport type: ") + madara + "\n"))
        << netprof;
  }
}

TEST(MadaraReport, SettingsUseMadarasMeanings)
{
  RunReport sut = subscriber_report();
  sut.config.num_vars = 4;
  sut.config.queue_length = 0;
  sut.config.payload_size = 4'096;

  EXPECT_EQ(section(madara_text_of(sut), "Settings:"), "Settings:\n"
                                                       "  Transport type: UDP\n"
                                                       "  Buffer size: 0 B\n"
                                                       "  Hosts: \n"
                                                       "    127.0.0.1:30001\n"
                                                       "    127.0.0.1:30000\n"
                                                       "  Data size: 4096 B\n"
                                                       "  Test time: 2.5 s\n"
                                                       "  Num vars: 4\n");
}

TEST(MadaraReport, WithCountTheTestTimeIsTheMeasuredOne)
{
  RunReport sut = publisher_report();
  sut.config.count = 5'000;
  sut.measured_seconds = 0.4567;
  EXPECT_TRUE(shows(madara_text_of(sut), "  Test time: 0.457 s\n")) << madara_text_of(sut);
}

TEST(MadaraReport, HeadlineAndWarningsFollowMadarasSections)
{
  RunReport sut = publisher_report();
  sut.headline = "75.4% lost at subscriber 1";
  sut.warnings = {"subscriber 1 lost 754 of 1,000 messages"};
  const std::string text = madara_text_of(sut);
  EXPECT_EQ(text.rfind("Test: SUCCESS\nSettings:\n", 0), 0u) << text;
  EXPECT_TRUE(shows(text, "  - 75.4% lost at subscriber 1\n"
                          "  - subscriber 1 lost 754 of 1,000 messages\n"))
      << text;
}

} // namespace
} // namespace netprof
