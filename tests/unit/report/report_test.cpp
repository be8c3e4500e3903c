#include <netprof/report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <string>

// Text and JSON formatters on the same hand-built reports: every value is set by hand (no
// Histogram), so these tests say exactly what the user will read.

namespace netprof {
namespace {

using nlohmann::json;

LatencySummary sample_rtt()
{
  LatencySummary rtt;
  rtt.count = 998;
  rtt.min_ns = 20'001;
  rtt.mean_ns = 45'678.5;
  rtt.max_ns = 4'560'000;
  rtt.stddev_ns = 12'345.6;
  rtt.p50_ns = 40'001;
  rtt.p90_ns = 60'000;
  rtt.p99_ns = 123'456;
  rtt.p999_ns = 1'000'000;
  rtt.p9999_ns = 4'560'000;
  return rtt;
}

SubscriberResult sample_subscriber()
{
  SubscriberResult sub;
  sub.id = 1;
  sub.counters_received = true;
  sub.counters.received = 99'990;
  sub.counters.unique = 99'990;
  sub.counters.out_of_order = 2;
  sub.counters.gaps = 3;
  sub.counters.datagrams = 99'990;
  sub.counters.payload_bytes = 99'990ULL * 128;
  sub.counters.wire_bytes = 99'990ULL * 180;
  sub.counters.first_to_last_ns = 9'999'000'000;
  sub.counters.probes_echoed = 1'000;
  sub.counters.warmup_received = 5'000;
  sub.throughput = compute_throughput(sub.counters);
  sub.lost = 10;
  sub.probes_sent = 1'000;
  sub.echoes = 998;
  sub.rtt = sample_rtt();
  return sub;
}

RunReport sample_publisher()
{
  RunReport report;
  report.config.role = Role::publisher;
  report.config.id = 0;
  report.config.transport_name = "udp";
  report.config.send_hz = 10'000;
  report.config.cpus = {2, 3};
  report.config.max_loss_percent = 1.0;
  report.config.command_line = {
      "netprof", "-i", "0", "-u", "127.0.0.1:40000", "-u", "127.0.0.1:40001", "--send-hz", "10000"};
  report.endpoint.transport = "udp";
  report.endpoint.local_addresses = {"127.0.0.1:40000"};
  report.endpoint.peer_addresses = {"127.0.0.1:40001"};
  report.endpoint.max_message_size = 65'475;
  report.endpoint.sends_datagrams = true;
  report.endpoint.requested_buffer_bytes = 1'000'000;
  report.endpoint.granted_send_buffer_bytes = 2'000'000;
  report.endpoint.granted_receive_buffer_bytes = 425'984;
  report.endpoint.capabilities.addresses_peers_one_by_one = true;
  report.endpoint.notes = {"receive buffer clamped by net.core.rmem_max"};
  report.host.hostname = "bench1";
  report.host.kernel = "Linux 6.1.0-18-amd64";
  report.host.cpu_model = "AMD EPYC";
  report.host.cores = 8;
  report.host.clock_source = "tsc";
  report.host.rmem_default = 212'992;
  report.host.rmem_max = 4'194'304;
  report.host.wmem_default = 212'992;
  report.host.wmem_max = 4'194'304;
  report.version = "0.1.0";
  report.build_type = "Release";
  report.commit = "0123456789ab-dirty";
  report.run_id = 0x0123456789abcdefULL;
  report.success = true;
  report.warnings = {"subscriber 2 sent no final counters"};
  report.messages_sent = 100'000;
  report.probes_sent = 1'000;
  report.echoes_received = 998;
  report.echo_bytes = 998 * 68;
  report.echoes_late = 1;
  for (int i = 0; i < 100'000; ++i)
    report.send_accounting.count(SendResult::sent, SendCause::unspecified);
  for (const SendCause cause :
       {SendCause::would_block, SendCause::would_block, SendCause::would_block,
        SendCause::no_buffer_space, SendCause::no_buffer_space})
    report.send_accounting.count(SendResult::back_pressured, cause);
  report.rtt = sample_rtt();
  report.rtt_uncorrected = sample_rtt();
  report.rtt_uncorrected.p50_ns = 41'000;
  report.rtt_uncorrected.p99_ns = 150'000;
  report.rtt_uncorrected.max_ns = 5'000'000;
  report.measured_seconds = 10.0;
  report.subscribers.push_back(sample_subscriber());
  SubscriberResult late;
  late.id = 2;
  late.joined_late = true;
  late.counters_received = false;
  late.outcome = SubscriberOutcome::vanished;
  late.probes_sent = 400;
  report.subscribers.push_back(late);
  report.rejected = 3;
  return report;
}

RunReport sample_subscriber_report()
{
  RunReport report = sample_publisher();
  report.config.role = Role::subscriber;
  report.config.id = 1;
  report.subscribers.clear();
  report.warnings.clear();
  report.rtt = {};
  report.rtt_uncorrected = {};
  report.messages_sent = 0;
  report.send_accounting = {};
  report.probes_sent = 0;
  report.echoes_received = 0;
  report.echoes_late = 0;
  report.self = sample_subscriber();
  report.end_received = true;
  report.rejected = 0;
  return report;
}

std::string text_of(const RunReport& report)
{
  std::ostringstream out;
  write_text_report(out, report);
  return out.str();
}

bool has_line(const std::string& text, const std::string& line)
{
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

std::string last_line(const std::string& text)
{
  std::string trimmed = text.substr(0, text.size() - 1);
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

std::set<std::string> keys_of(const json& object)
{
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) {
    keys.insert(it.key());
  }
  return keys;
}

json parsed(const RunReport& report)
{
  // Through text and back, as a script reading --json would see it.
  return json::parse(report_to_json(report).dump(2));
}

const std::set<std::string> summary_keys{"count", "min", "mean", "max",   "stddev",
                                         "p50",   "p90", "p99",  "p99_9", "p99_99"};

const std::set<std::string> subscriber_keys{"id",
                                            "counters_received",
                                            "joined_late",
                                            "joined_at_sequence",
                                            "sent_before_joining",
                                            "left_early",
                                            "last_heard_seconds",
                                            "received",
                                            "unique",
                                            "lost",
                                            "messages_owed",
                                            "injected_drops",
                                            "join_seconds",
                                            "loss_percent",
                                            "duplicates",
                                            "out_of_order",
                                            "gaps",
                                            "datagrams",
                                            "payload_bytes",
                                            "wire_bytes",
                                            "probes_sent",
                                            "echoes",
                                            "probes_echoed",
                                            "rejected",
                                            "warmup_received",
                                            "records_decoded",
                                            "throughput",
                                            "latency"};

// A subscriber's entry in a publisher's report: its figures and what became of it.
std::set<std::string> publisher_view_keys()
{
  std::set<std::string> keys = subscriber_keys;
  keys.insert({"outcome", "restarts", "restarted_seconds", "id_clash", "resources"});
  return keys;
}

// ---- text ----

TEST(TextReport, FirstLineIsTheVerdict)
{
  RunReport sut = sample_publisher();
  EXPECT_EQ(text_of(sut).rfind("Test: SUCCESS\n", 0), 0u);
  sut.success = false;
  EXPECT_EQ(text_of(sut).rfind("Test: FAIL\n", 0), 0u);
  sut.interrupted = true;
  EXPECT_EQ(text_of(sut).rfind("Test: INTERRUPTED (partial results)\n", 0), 0u);
}

TEST(TextReport, HeadlineFollowsASuccessOnTheFirstLine)
{
  RunReport sut = sample_publisher();
  sut.headline = "75.4% lost at subscriber 1: the sender outran it; pace with --send-hz, or "
                 "--max-loss to fail";
  EXPECT_EQ(text_of(sut).rfind("Test: SUCCESS (75.4% lost at subscriber 1: the sender outran "
                               "it; pace with --send-hz, or --max-loss to fail)\n",
                               0),
            0u);
  sut.success = false; // a FAIL's reasons are its Problems, on the next lines
  EXPECT_EQ(text_of(sut).rfind("Test: FAIL\n", 0), 0u);
}

TEST(TextReport, SubscriberShowsItsOneWayLatencyLabelledAsOneHostsOnly)
{
  RunReport sut = sample_subscriber_report();
  sut.self->one_way = sample_rtt();
  const std::string text = text_of(sut);
  EXPECT_NE(text.find("Latency:\n"
                      "  Latency is measured on the publisher (round trip); see its report.\n"
                      "  One-way (this subscriber's receive time - the publisher's send stamp):\n"
                      "    valid only when publisher and subscriber share a host's clock; not "
                      "comparable across hosts\n"
                      "    Min: 20.0 us\n"
                      "    Avg: 45.7 us\n"
                      "    Max: 4.56 ms\n"),
            std::string::npos)
      << text;
  sut.self->one_way = {};
  EXPECT_EQ(text_of(sut).find("One-way"), std::string::npos);
}

TEST(TextReport, ListsProblemsAndWarnings)
{
  RunReport sut = sample_publisher();
  sut.success = false;
  sut.problems = {"subscriber 1 lost 10% (limit 1%)"};
  std::string text = text_of(sut);
  EXPECT_NE(text.find("Test: FAIL\nProblems:\n  - subscriber 1 lost 10% (limit 1%)\n"
                      "Warnings:\n  - subscriber 2 sent no final counters\nSettings:\n"),
            std::string::npos)
      << text;
}

TEST(JsonReport, HostSaysHowLongAnIdleVcpuPollsBeforeItHalts)
{
  RunReport sut = sample_publisher();
  sut.host.cpu_idle_driver = "haltpoll";
  sut.host.guest_halt_poll_ns = 0;
  EXPECT_EQ(report_to_json(sut)["host"]["cpu_idle"],
            (json{{"driver", "haltpoll"}, {"guest_halt_poll_ns", 0}}));
}

TEST(TextReport, MachineLineNamesTheIdleDriverAndWhetherIdleVcpusHaltAtOnce)
{
  RunReport sut = sample_publisher();
  EXPECT_TRUE(has_line(text_of(sut), "  Machine: bench1, Linux 6.1.0-18-amd64, AMD EPYC, 8 cores, "
                                     "clock source tsc"))
      << text_of(sut);
  sut.host.cpu_idle_driver = "haltpoll";
  sut.host.guest_halt_poll_ns = 0;
  EXPECT_TRUE(has_line(text_of(sut),
                       "  Machine: bench1, Linux 6.1.0-18-amd64, AMD EPYC, 8 cores, "
                       "clock source tsc, cpuidle haltpoll (idle vCPUs halt at once)"))
      << text_of(sut);
  sut.host.guest_halt_poll_ns = 200'000;
  EXPECT_NE(text_of(sut).find("cpuidle haltpoll (idle vCPUs poll 200 us before halting)"),
            std::string::npos)
      << text_of(sut);
  sut.host.cpu_idle_driver = "intel_idle";
  sut.host.guest_halt_poll_ns.reset();
  EXPECT_NE(text_of(sut).find("clock source tsc, cpuidle intel_idle\n"), std::string::npos)
      << text_of(sut);
}

TEST(TextReport, NoProblemsHeadingWhenThereAreNone)
{
  RunReport sut = sample_publisher();
  sut.warnings.clear();
  std::string text = text_of(sut);
  EXPECT_EQ(text.find("Problems:"), std::string::npos);
  EXPECT_EQ(text.find("Warnings:"), std::string::npos);
}

TEST(TextReport, SettingsDescribeTheRun)
{
  std::string text = text_of(sample_publisher());
  EXPECT_TRUE(has_line(text, "Settings:")) << text;
  EXPECT_TRUE(has_line(text, "  Transport type: udp")) << text;
  EXPECT_TRUE(has_line(text, "  Role: publisher id 0")) << text;
  EXPECT_TRUE(has_line(text, "  Mode: stream with probes at 1,000 Hz")) << text;
  EXPECT_TRUE(has_line(text, "  Buffer size: requested 1,000,000 B; granted send 2,000,000 B, "
                             "receive 425,984 B"))
      << text;
  EXPECT_TRUE(has_line(text, "    note: receive buffer clamped by net.core.rmem_max")) << text;
  EXPECT_TRUE(has_line(text, "  Hosts: 127.0.0.1:40000 (bound), 127.0.0.1:40001 (peer)")) << text;
  EXPECT_TRUE(has_line(text, "  Data size: 128 B")) << text;
  EXPECT_TRUE(has_line(text, "  Num vars: 0")) << text;
  EXPECT_TRUE(has_line(text, "  Test time: 10 s")) << text;
  EXPECT_TRUE(has_line(text, "  Send rate: 10,000 Hz (--pace hybrid)")) << text;
  EXPECT_TRUE(has_line(text, "  Warm-up: 0.5 s")) << text;
  EXPECT_TRUE(has_line(text, "  Wait strategy: block")) << text;
  EXPECT_TRUE(has_line(text, "  CPU pinning: 2, 3")) << text;
  EXPECT_TRUE(has_line(text, "  Run id: 0123456789abcdef")) << text;
}

// A transport's QoS as zmq states it for keep-last:8: one line beside the transport's facts.
EffectiveQos sample_qos()
{
  EffectiveQos qos;
  qos.reliability = Reliability::best_effort;
  qos.history = HistoryKind::keep_last;
  qos.depth = 1'000;
  qos.set_by = QosSetBy::publisher;
  qos.meaning = "at the high-water mark the publisher drops";
  qos.requested.history = History{HistoryKind::keep_last, 1'000};
  return qos;
}

TEST(TextReport, StatesTheQosBesideTheTransportsFacts)
{
  RunReport sut = sample_publisher();
  sut.endpoint.qos = sample_qos();

  const std::string text = text_of(sut);

  EXPECT_TRUE(has_line(text, "  QoS: best-effort, history keep-last of 1,000 messages (set by "
                             "the publisher; asked: --history keep-last:1000): at the "
                             "high-water mark the publisher drops"))
      << text;
  EXPECT_LT(text.find("  QoS: "), text.find("  Buffer size: "));
}

TEST(TextReport, NamesWhoSetsTheQos)
{
  RunReport sut = sample_publisher();
  sut.endpoint.qos.set_by = QosSetBy::every_process;
  EXPECT_NE(text_of(sut).find("(set by every process; asked: none)"), std::string::npos);
  sut.endpoint.qos.set_by = QosSetBy::transport;
  EXPECT_NE(text_of(sut).find("(set by the transport; asked: none)"), std::string::npos);
}

TEST(JsonReport, StatesTheQosAndWhatWasAsked)
{
  RunReport sut = sample_publisher();
  sut.endpoint.qos = sample_qos();
  sut.endpoint.qos.requested.reliability = Reliability::best_effort;

  const json qos = parsed(sut)["endpoint"]["qos"];

  EXPECT_EQ(qos,
            (json{{"reliability", "best-effort"},
                  {"history", "keep-last"},
                  {"depth", 1'000},
                  {"set_by", "publisher"},
                  {"meaning", "at the high-water mark the publisher drops"},
                  {"requested", {{"reliability", "best-effort"}, {"history", "keep-last:1000"}}}}));
}

TEST(TextReport, LocalPairFollowsTheHosts)
{
  RunReport sut = sample_publisher();
  EXPECT_EQ(text_of(sut).find("Local pair:"), std::string::npos) << "a role on its own";
  sut.config.pair_layout = PairLayout::threads;
  const std::string threads = text_of(sut);
  EXPECT_TRUE(has_line(threads, "  Local pair: threads of one process")) << threads;
  EXPECT_LT(threads.find("  Hosts:"), threads.find("  Local pair:"));
  EXPECT_NE(threads.find("\n  This thread: "), std::string::npos) << "its own CPU time";
  sut.config.pair_layout = PairLayout::processes;
  EXPECT_TRUE(has_line(text_of(sut), "  Local pair: two processes"));
}

TEST(TextReport, SettingsAlternatives)
{
  RunReport sut = sample_publisher();
  sut.config.count = 1'000'000;
  sut.config.send_hz = 0;
  sut.config.warmup_count = 500;
  sut.config.mode = Mode::ping_pong;
  sut.config.cpus.clear();
  sut.config.role = Role::subscriber;
  sut.config.id = 4;
  sut.endpoint.requested_buffer_bytes = 0;
  std::string text = text_of(sut);
  EXPECT_TRUE(has_line(text, "  Count: 1,000,000 messages")) << text;
  EXPECT_EQ(text.find("Test time:"), std::string::npos);
  EXPECT_TRUE(has_line(text, "  Send rate: as fast as possible")) << text;
  EXPECT_TRUE(has_line(text, "  Warm-up: 500 messages")) << text;
  EXPECT_TRUE(has_line(text, "  Mode: ping-pong (one probe in flight, timeout 1 s)")) << text;
  EXPECT_TRUE(has_line(text, "  CPU pinning: none")) << text;
  EXPECT_TRUE(has_line(text, "  Role: subscriber id 4")) << text;
  EXPECT_NE(text.find("  Buffer size: requested OS default;"), std::string::npos) << text;
}

TEST(TextReport, PayloadFillSaysWhetherTheTransportLentAndHowOftenThePayloadWasWritten)
{
  RunReport copied = sample_publisher();
  EXPECT_TRUE(has_line(text_of(copied), "  Payload fill: once, lent: no (the transport copies one "
                                        "buffer the core filled once)"));
  RunReport lent = sample_publisher();
  lent.transport_lent = true;
  lent.payload_writes = 12;
  EXPECT_TRUE(has_line(text_of(lent), "  Payload fill: once, lent: yes (payload written into 12 "
                                      "of the measured loans, the others held it already and "
                                      "got only a header, as iceperf; --payload-fill "
                                      "every-message measures the copy)"));
  lent.config.payload_fill = PayloadFill::every_message;
  EXPECT_TRUE(has_line(text_of(lent), "  Payload fill: every-message, lent: yes (payload written "
                                      "into every loan: the figures include that copy)"));
  EXPECT_EQ(parsed(lent)["publisher"]["payload_fill"], "every-message");
  EXPECT_EQ(parsed(lent)["publisher"]["transport_lent"], true);
  EXPECT_EQ(parsed(lent)["publisher"]["payload_writes"], 12);
}

TEST(TextReport, ProbesRelayedOnTheTransportsThreadAreCountedOnlyWhenThereAreAny)
{
  RunReport report = sample_publisher();
  EXPECT_EQ(text_of(report).find("Probes relayed"), std::string::npos);
  EXPECT_EQ(parsed(report)["publisher"]["probes_relayed"], 0);
  report.probes_relayed = 999;
  EXPECT_TRUE(has_line(text_of(report),
                       "  Probes relayed: 999 of 1,000 sent on the transport's receive thread as "
                       "the last echo arrived, as ddsperf's ping does in its listener (netprof's "
                       "own thread stays asleep)"))
      << text_of(report);
  EXPECT_EQ(parsed(report)["publisher"]["probes_relayed"], 999);
}

TEST(TextReport, PublisherLatencyStatesTheClockAndBothViews)
{
  std::string text = text_of(sample_publisher());
  EXPECT_TRUE(has_line(text, "Latency: round trip on the publisher's clock; one-way = RTT/2"));
  EXPECT_TRUE(has_line(text, "  Probes sent: 1,000")) << text;
  EXPECT_TRUE(has_line(text, "  Echoes received: 998 (from 2 subscribers)")) << text;
  EXPECT_TRUE(has_line(text, "  Late echoes: 1 (among the echoes received)")) << text;
  EXPECT_TRUE(has_line(text, "  Echo: record, 68 B per echo (header and stamps only; --echo full "
                             "sends a probe's size back)"))
      << text;
  EXPECT_NE(text.find("  One-way (RTT/2):\n"
                      "    Min: 10.0 us\n"
                      "    Avg: 22.8 us\n"
                      "    Max: 2.28 ms\n"
                      "    Stddev: 6.17 us\n"
                      "    p50: 20.0 us\n"
                      "    p90: 30.0 us\n"
                      "    p99: 61.7 us\n"
                      "    p99.9: 500 us\n"
                      "    p99.99: 2.28 ms\n"
                      "  Round trip (RTT):\n"
                      "    Min: 20.0 us\n"
                      "    Avg: 45.7 us\n"
                      "    Max: 4.56 ms\n"
                      "    Stddev: 12.3 us\n"
                      "    p50: 40.0 us\n"
                      "    p90: 60.0 us\n"
                      "    p99: 123 us\n"
                      "    p99.9: 1.00 ms\n"
                      "    p99.99: 4.56 ms\n"),
            std::string::npos)
      << text;
}

TEST(TextReport, UncorrectedLatencyOnlyWithASendRate)
{
  RunReport sut = sample_publisher();
  std::string text = text_of(sut);
  EXPECT_TRUE(has_line(
      text, "  Uncorrected RTT (from actual send time): p50 41.0 us, p99 150 us, max 5.00 ms"))
      << text;
  EXPECT_NE(text.find("coordinated omission"), std::string::npos);
  sut.config.send_hz = 0;
  EXPECT_EQ(text_of(sut).find("Uncorrected"), std::string::npos);
}

TEST(TextReport, PacerLatenessAndPaceOnlyWithASendRate)
{
  RunReport sut = sample_publisher();
  sut.config.pace = PaceMode::hybrid;
  sut.pacer_lateness.count = 100'000;
  sut.pacer_lateness.p50_ns = 800;
  sut.pacer_lateness.p99_ns = 2'500;
  sut.pacer_lateness.max_ns = 90'000;
  std::string text = text_of(sut);
  EXPECT_TRUE(has_line(text, "  Pacer lateness (actual send minus due time, 100,000 messages, "
                             "--pace hybrid): p50 800 ns, p99 2.50 us, max 90.0 us"))
      << text;
  EXPECT_NE(text.find("Hz (--pace hybrid)\n"), std::string::npos) << text;
  sut.config.send_hz = 0;
  text = text_of(sut);
  EXPECT_EQ(text.find("Pacer lateness"), std::string::npos);
  EXPECT_EQ(text.find("--pace"), std::string::npos);
}

TEST(JsonReport, PacerLatenessIsADistributionBesideTheLatency)
{
  RunReport report = sample_publisher();
  report.pacer_lateness.count = 10;
  report.pacer_lateness.p50_ns = 700;
  report.config.pace = PaceMode::spin;
  const json sut = parsed(report);
  EXPECT_EQ(sut["publisher"]["pacer_lateness_ns"]["count"], 10);
  EXPECT_EQ(sut["publisher"]["pacer_lateness_ns"]["p50"], 700);
  EXPECT_EQ(sut["settings"]["pace"], "spin");
}

TEST(JsonReport, SchedulerLoadIsUnderResources)
{
  RunReport report = sample_publisher();
  EXPECT_TRUE(parsed(report)["resources"]["scheduler"].is_null());
  SchedulerLoad load;
  load.seconds = 2;
  load.involuntary_switches = 91;
  load.cores_given = 1;
  report.scheduler = load;
  const json sut = parsed(report)["resources"]["scheduler"];
  EXPECT_EQ(sut["involuntary_switches"], 91);
  EXPECT_EQ(sut["cores_given"], 1);
}

TEST(TextReport, DistributionBarsOnlyWhenAskedFor)
{
  RunReport sut = sample_publisher();
  sut.rtt_bins = {{20'000, 40'000, 10}, {40'000, 80'000, 5}};
  EXPECT_EQ(text_of(sut).find("distribution"), std::string::npos);

  sut.config.print_histogram = true;
  const std::string text = text_of(sut);
  // One-way bins are half the RTT bins; the largest bin fills the bar.
  EXPECT_TRUE(has_line(text, "    10.0 us - 20.0 us    |" + std::string(40, '#') + "| 10 (66.7%)"))
      << text;
  EXPECT_TRUE(has_line(text, "    20.0 us - 40.0 us    |" + std::string(20, '#') +
                                 std::string(20, ' ') + "| 5 (33.3%)"))
      << text;
}

TEST(TextReport, NoEchoesSaySo)
{
  RunReport sut = sample_publisher();
  sut.rtt = {};
  std::string text = text_of(sut);
  EXPECT_TRUE(has_line(text, "  no probes echoed")) << text;
  EXPECT_EQ(text.find("Round trip (RTT):"), std::string::npos);
}

TEST(TextReport, PublisherThroughputPerSubscriber)
{
  std::string text = text_of(sample_publisher());
  EXPECT_NE(text.find("Throughput:\n"
                      "  Messages sent: 100,000\n"
                      "  Send attempts: 100,005 (100,000 sent, 5 pushed back, 0 failed): "
                      "eagain 3, enobufs 2\n"
                      "  Measured time: 10.0 s (publisher clock)\n"
                      "  Subscriber 1:\n"
                      "    Messages received: 99,990\n"
                      "    Message rate: 10.0 k msg/s\n"
                      "    Datagrams: 99,990 (10.0 k datagrams/s)\n"
                      "    Data received: 12.8 MB (12,798,720 B)\n"
                      "    Data rate: 1.28 MB/s\n"
                      "    Wire data: 18.0 MB (17,998,200 B) at 1.80 MB/s\n"
                      "    Measured time: 10.0 s (subscriber clock, first to last message)\n"
                      "    Lost: 10 (0.010%)\n"
                      "    Gaps: 3\n"
                      "    Duplicates: 0\n"
                      "    Out of order: 2\n"
                      "    Probes echoed: 998 of 1,000\n"
                      "    One-way (RTT/2): p50 20.0 us, p99 61.7 us\n"),
            std::string::npos)
      << text;
}

TEST(TextReport, MarksLateAndSilentSubscribers)
{
  std::string text = text_of(sample_publisher());
  EXPECT_NE(text.find("  Subscriber 2: (joined late) (vanished: no final counters)\n"
                      "    Probes echoed: 0 of 400\n"
                      "    One-way (RTT/2): no probes echoed\n"),
            std::string::npos)
      << text;
}

TEST(TextReport, MarksARestartedSubscriberAsPartial)
{
  RunReport sut = sample_publisher();
  sut.subscribers[0].outcome = SubscriberOutcome::restarted;
  sut.subscribers[0].restarts = 1;
  sut.subscribers[0].restarted_seconds = 1.25;
  EXPECT_TRUE(has_line(text_of(sut),
                       "  Subscriber 1: (restarted 1.25 s into the measured phase: figures from "
                       "the new process only, not the whole run)"))
      << text_of(sut);
}

TEST(TextReport, CountsRestartsBeforeTheMeasuredPhase)
{
  RunReport sut = sample_publisher();
  sut.subscribers[0].restarts = 2;
  EXPECT_TRUE(has_line(text_of(sut), "  Subscriber 1: (restarted 2 times)")) << text_of(sut);
}

TEST(TextReport, SubscriberSaysHowItsRunEnded)
{
  RunReport sut = sample_subscriber_report();
  EXPECT_TRUE(has_line(text_of(sut), "  Run ended by: the publisher's end of test"));
  sut.end_received = false;
  sut.ended_by = RunEnding::publisher_silent;
  sut.config.idle_timeout_seconds = 2;
  EXPECT_TRUE(has_line(text_of(sut),
                       "  Run ended by: the publisher going silent for --idle-timeout 2 s "
                       "(partial figures)"))
      << text_of(sut);
}

TEST(TextReport, AbandonedRunsFollowTheLastRunWithUnknownLoss)
{
  RunReport sut = sample_subscriber_report();
  AbandonedRun abandoned;
  abandoned.run_id = 0xfedcba9876543210ULL;
  abandoned.figures.counters.received = 1'234;
  sut.abandoned_runs.push_back(abandoned);
  const std::string text = text_of(sut);
  EXPECT_NE(text.find("Earlier runs (abandoned when the publisher restarted; partial figures):\n"
                      "  Run fedcba9876543210: new run detected, no end of test\n"
                      "    Messages received: 1,234\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(has_line(text, "    Lost: unknown (no end of test received)")) << text;
  EXPECT_LT(text.find("  End of test received: yes"), text.find("Earlier runs")) << text;
}

TEST(TextReport, RecordsDecodedOnlyWithNumVars)
{
  RunReport sut = sample_publisher();
  EXPECT_EQ(text_of(sut).find("Records decoded"), std::string::npos);
  sut.config.num_vars = 4;
  sut.subscribers[0].counters.records_decoded = 399'960;
  EXPECT_TRUE(has_line(text_of(sut), "    Records decoded: 399,960"));
}

TEST(TextReport, RejectedMessagesIsTheLastLine)
{
  RunReport sut = sample_publisher();
  EXPECT_EQ(last_line(text_of(sut)), "Rejected messages: 3");
  sut.rejected = 0;
  EXPECT_EQ(text_of(sut).find("Rejected messages"), std::string::npos);
}

TEST(TextReport, SubscriberPointsToThePublisherForLatency)
{
  std::string text = text_of(sample_subscriber_report());
  EXPECT_NE(text.find("Latency:\n  Latency is measured on the publisher (round trip); see its "
                      "report.\nThroughput:\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(has_line(text, "  Messages received: 99,990")) << text;
  EXPECT_TRUE(has_line(text, "  Lost: 10 (0.010%)")) << text;
  EXPECT_TRUE(has_line(text, "  Probes echoed: 1,000")) << text;
  EXPECT_TRUE(has_line(text, "  End of test received: yes")) << text;
  EXPECT_TRUE(has_line(text, "  Run ended by: the publisher's end of test")) << text;
  EXPECT_EQ(last_line(text), "  Steal time: unknown of the host's CPU time during the run");
  EXPECT_EQ(text.find("Subscriber 1:"), std::string::npos);
  EXPECT_EQ(text.find("Round trip"), std::string::npos);
}

TEST(TextReport, SubscriberWithoutEndCannotKnowItsLoss)
{
  RunReport sut = sample_subscriber_report();
  sut.end_received = false;
  sut.success = false;
  std::string text = text_of(sut);
  EXPECT_TRUE(has_line(text, "  Lost: unknown (no end of test received)")) << text;
  EXPECT_TRUE(has_line(text, "  End of test received: no")) << text;
}

TEST(TextReport, NeverPrintsAnExponentOrNonFiniteNumber)
{
  RunReport sut = sample_publisher();
  sut.rtt.mean_ns = std::nan("");
  sut.rtt.stddev_ns = std::numeric_limits<double>::infinity();
  sut.rtt.max_ns = std::int64_t{1} << 40;
  sut.subscribers[0].counters.payload_bytes = 1'000'000'000'000'000;
  sut.subscribers[0].throughput.payload_bytes_per_second = 1.2e9;
  sut.subscribers[0].throughput.messages_per_second = 1e15;
  sut.measured_seconds = 1e15;
  std::string text = text_of(sut);
  EXPECT_EQ(text.find("e+"), std::string::npos) << text;
  EXPECT_EQ(text.find("e-0"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, "    Avg: n/a")) << text;
}

// ---- JSON ----

TEST(JsonReport, PublisherHasExactlyTheDocumentedTopLevelKeys)
{
  json sut = parsed(sample_publisher());
  EXPECT_EQ(keys_of(sut), (std::set<std::string>{"schema_version", "tool", "command_line", "host",
                                                 "settings", "endpoint", "run_id", "result",
                                                 "rejected", "foreign_run_messages", "resources",
                                                 "publisher", "subscribers"}));
  EXPECT_EQ(sut["schema_version"], 1);
  EXPECT_EQ(sut["tool"], (json{{"name", "netprof"},
                               {"version", "0.1.0"},
                               {"build_type", "Release"},
                               {"commit", "0123456789ab-dirty"}}));
  EXPECT_EQ(sut["command_line"].size(), 9u);
  EXPECT_EQ(sut["command_line"][8], "10000");
  EXPECT_EQ(sut["run_id"], "0123456789abcdef");
  EXPECT_EQ(sut["rejected"], 3);
}

TEST(JsonReport, RttHistogramBinsAreListedInOrder)
{
  RunReport sut = sample_publisher();
  sut.rtt_bins = {{20'000, 40'000, 10}, {40'000, 80'000, 5}};

  const auto bins = report_to_json(sut)["publisher"]["latency"]["rtt_histogram"];

  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0]["low_ns"], 20'000);
  EXPECT_EQ(bins[0]["high_ns"], 40'000);
  EXPECT_EQ(bins[1]["count"], 5);
}

TEST(JsonReport, HostAndEndpoint)
{
  json sut = parsed(sample_publisher());
  EXPECT_EQ(sut["host"], (json{{"hostname", "bench1"},
                               {"kernel", "Linux 6.1.0-18-amd64"},
                               {"cpu_model", "AMD EPYC"},
                               {"cores", 8},
                               {"clock_source", "tsc"},
                               {"cpu_governor", ""},
                               {"cpu_idle", {{"driver", ""}, {"guest_halt_poll_ns", nullptr}}},
                               {"net_core",
                                {{"rmem_default", 212'992},
                                 {"rmem_max", 4'194'304},
                                 {"wmem_default", 212'992},
                                 {"wmem_max", 4'194'304}}}}));
  EXPECT_EQ(
      sut["endpoint"],
      (json{{"transport", "udp"},
            {"local_addresses", {"127.0.0.1:40000"}},
            {"peer_addresses", {"127.0.0.1:40001"}},
            {"max_message_size", 65'475},
            {"buffer",
             {{"requested", 1'000'000}, {"granted_send", 2'000'000}, {"granted_receive", 425'984}}},
            {"capabilities",
             {{"addresses_peers_one_by_one", true},
              {"shared_medium", false},
              {"lends_announced_payload", false}}},
            {"qos",
             {{"reliability", "best-effort"},
              {"history", "none"},
              {"depth", nullptr},
              {"set_by", "transport"},
              {"meaning", ""},
              {"requested", {{"reliability", nullptr}, {"history", nullptr}}}}},
            {"notes", {"receive buffer clamped by net.core.rmem_max"}}}));
}

TEST(JsonReport, Settings)
{
  json settings = parsed(sample_publisher())["settings"];
  EXPECT_EQ(keys_of(settings), (std::set<std::string>{"role",
                                                      "echo",
                                                      "id",
                                                      "transport",
                                                      "mode",
                                                      "payload_size",
                                                      "num_vars",
                                                      "payload_type",
                                                      "fanout",
                                                      "publishers",
                                                      "topics",
                                                      "test_seconds",
                                                      "count",
                                                      "count_received",
                                                      "send_hz",
                                                      "probe_hz",
                                                      "probe_timeout_seconds",
                                                      "warmup_seconds",
                                                      "warmup_count",
                                                      "subscribers_expected",
                                                      "wait_seconds",
                                                      "idle_timeout_seconds",
                                                      "wait_strategy",
                                                      "pace",
                                                      "cpus",
                                                      "queue_length",
                                                      "max_loss_percent",
                                                      "format",
                                                      "local_pair",
                                                      "nice",
                                                      "rt_priority",
                                                      "drop_percent",
                                                      "drop_seed",
                                                      "interval_seconds"}));
  EXPECT_EQ(settings["role"], "publisher");
  EXPECT_EQ(settings["id"], 0);
  EXPECT_EQ(settings["transport"], "udp");
  EXPECT_EQ(settings["mode"], "stream");
  EXPECT_EQ(settings["payload_size"], 128);
  EXPECT_EQ(settings["test_seconds"], 10.0);
  EXPECT_TRUE(settings["count"].is_null());
  EXPECT_TRUE(settings["count_received"].is_null());
  EXPECT_TRUE(settings["warmup_count"].is_null());
  EXPECT_EQ(settings["send_hz"], 10'000.0);
  EXPECT_EQ(settings["probe_hz"], 1'000.0);
  EXPECT_EQ(settings["wait_strategy"], "block");
  EXPECT_EQ(settings["cpus"], (json{2, 3}));
  EXPECT_EQ(settings["queue_length"], 1'000'000);
  EXPECT_EQ(settings["max_loss_percent"], 1.0);
  EXPECT_EQ(settings["subscribers_expected"], 1);
  EXPECT_EQ(settings["format"], "netprof");
  EXPECT_TRUE(settings["local_pair"].is_null()) << "a role started on its own";
}

TEST(JsonReport, LocalPairSaysProcessesOrThreads)
{
  RunReport report = sample_publisher();
  report.config.pair_layout = PairLayout::processes;
  EXPECT_EQ(parsed(report)["settings"]["local_pair"], "processes");
  report.config.pair_layout = PairLayout::threads;
  EXPECT_EQ(parsed(report)["settings"]["local_pair"], "threads");
}

TEST(JsonReport, OptionalSettingsBecomeNumbersWhenGiven)
{
  RunReport report = sample_publisher();
  report.config.count = 5'000;
  report.config.warmup_count = 100;
  report.config.max_loss_percent.reset();
  report.config.mode = Mode::ping_pong;
  report.config.wait_strategy = WaitStrategy::spin;
  json settings = parsed(report)["settings"];
  EXPECT_EQ(settings["count"], 5'000);
  EXPECT_EQ(settings["warmup_count"], 100);
  EXPECT_TRUE(settings["max_loss_percent"].is_null());
  EXPECT_EQ(settings["mode"], "ping-pong");
  EXPECT_EQ(settings["wait_strategy"], "spin");
}

TEST(JsonReport, Result)
{
  RunReport report = sample_publisher();
  json sut = parsed(report)["result"];
  EXPECT_EQ(sut, (json{{"status", "SUCCESS"},
                       {"success", true},
                       {"interrupted", false},
                       {"headline", ""},
                       {"problems", json::array()},
                       {"warnings", {"subscriber 2 sent no final counters"}}}));
  report.success = false;
  EXPECT_EQ(parsed(report)["result"]["status"], "FAIL");
  report.interrupted = true;
  EXPECT_EQ(parsed(report)["result"]["status"], "INTERRUPTED");
  EXPECT_EQ(parsed(report)["result"]["interrupted"], true);
}

TEST(JsonReport, ResultCarriesTheVerdictLinesHeadline)
{
  RunReport report = sample_publisher();
  report.headline = "75.4% lost at subscriber 1";
  EXPECT_EQ(parsed(report)["result"]["headline"], "75.4% lost at subscriber 1");
}

TEST(JsonReport, SubscriberGivesItsOneWayLatencyFromTheSendStamp)
{
  RunReport report = sample_subscriber_report();
  report.self->one_way = sample_rtt();
  const json latency = parsed(report)["subscriber"]["latency"];
  EXPECT_EQ(keys_of(latency), (std::set<std::string>{"rtt_ns", "one_way_ns", "cross_clock",
                                                     "receive_minus_send_ns"}));
  EXPECT_TRUE(latency["cross_clock"].is_null());
  EXPECT_EQ(keys_of(latency["receive_minus_send_ns"]), summary_keys);
  // As measured, whole ns: not halved like the publisher's RTT/2.
  EXPECT_EQ(latency["receive_minus_send_ns"]["p50"], 40'001);
  EXPECT_EQ(latency["receive_minus_send_ns"]["count"], 998);
}

TEST(JsonReport, SendAccountingListsEveryCauseAndAddsUp)
{
  json sut = parsed(sample_publisher())["publisher"]["send_accounting"];
  EXPECT_EQ(keys_of(sut), (std::set<std::string>{"attempted", "sent", "pushed_back", "failed",
                                                 "refused_by_cause"}));
  EXPECT_EQ(keys_of(sut["refused_by_cause"]),
            (std::set<std::string>{"unspecified", "eagain", "enobufs", "zmq_hwm", "ring_full",
                                   "queue_full", "connecting", "eintr", "error"}));
  EXPECT_EQ(sut["attempted"], 100'005);
  EXPECT_EQ(sut["sent"], 100'000);
  EXPECT_EQ(sut["pushed_back"], 5);
  EXPECT_EQ(sut["failed"], 0);
  EXPECT_EQ(sut["refused_by_cause"]["eagain"], 3);
  EXPECT_EQ(sut["refused_by_cause"]["enobufs"], 2);
  EXPECT_EQ(sut["refused_by_cause"]["ring_full"], 0);
}

TEST(TextReport, SendAttemptsWithoutRefusalsNameNoCause)
{
  RunReport report = sample_publisher();
  report.send_accounting = {};
  report.send_accounting.count(SendResult::sent, SendCause::unspecified);
  EXPECT_TRUE(has_line(text_of(report), "  Send attempts: 1 (1 sent, 0 pushed back, 0 failed)"));
}

CrossClockLatency sample_cross_clock()
{
  CrossClockLatency cross;
  cross.exchanges = 1'200;
  cross.exchanges_used = 8;
  cross.offset_ns = -3'000'000'000'250;
  cross.bound_ns = 12'500;
  cross.min_delay_ns = 24'999;
  cross.forward = sample_rtt();
  cross.backward.count = 998;
  cross.backward.p50_ns = 9'000;
  cross.backward.p99_ns = 15'000;
  cross.backward.min_ns = -1'000;
  cross.backward.max_ns = 40'000;
  cross.turnaround.count = 998;
  cross.turnaround.p50_ns = 1'500;
  cross.turnaround.p99_ns = 2'000;
  cross.turnaround.max_ns = 9'000;
  return cross;
}

TEST(JsonReport, SubscriberGivesTheCrossClockFiguresWithTheirBound)
{
  RunReport report = sample_publisher();
  report.subscribers.at(0).cross_clock = sample_cross_clock();
  const json cross = parsed(report)["subscribers"][0]["latency"]["cross_clock"];
  EXPECT_EQ(
      keys_of(cross),
      (std::set<std::string>{"exchanges", "exchanges_used", "offset_ns", "bound_ns", "min_delay_ns",
                             "forward_ns", "backward_ns", "turnaround_ns", "out_of_range"}));
  EXPECT_EQ(cross["offset_ns"], -3'000'000'000'250);
  EXPECT_EQ(cross["bound_ns"], 12'500);
  EXPECT_EQ(cross["exchanges_used"], 8);
  EXPECT_EQ(keys_of(cross["forward_ns"]), summary_keys);
  EXPECT_EQ(cross["forward_ns"]["p50"], 40'001) << "whole ns, not halved";
  EXPECT_EQ(cross["backward_ns"]["min"], -1'000) << "within the bound of 0, kept as measured";
  EXPECT_EQ(cross["turnaround_ns"]["p50"], 1'500) << "one clock's difference: whole ns, as taken";
}

TEST(TextReport, TheSubscribersTurnaroundIsShownUnderTheRoundTripItIsPartOf)
{
  RunReport report = sample_publisher();
  report.subscribers.at(0).cross_clock = sample_cross_clock();
  const std::string line = "Subscriber's turnaround (its arrival stamp to its echo stamp, inside "
                           "each round trip): p50 1.50 us, p99 2.00 us, max 9.00 us";
  std::string text = text_of(report);
  EXPECT_TRUE(has_line(text, "      " + line)) << "in its subscriber's section: " << text;
  EXPECT_FALSE(has_line(text, "  " + line)) << "two subscribers: no one turnaround to lead with";

  report.subscribers.resize(1);
  text = text_of(report);
  EXPECT_TRUE(has_line(text, "  " + line)) << text;
  EXPECT_LT(text.find("  Round trip (RTT):"), text.find("  " + line));

  report.subscribers.at(0).cross_clock->turnaround = {};
  EXPECT_EQ(text_of(report).find("turnaround"), std::string::npos)
      << "no line without a measured exchange";
}

TEST(TextReport, CrossClockFiguresAreLabelledWithTheirSourceAndBound)
{
  RunReport report = sample_publisher();
  report.subscribers.at(0).cross_clock = sample_cross_clock();
  const std::string text = text_of(report);
  EXPECT_NE(text.find("    One-way across clocks, offset estimated from the 8 exchanges with the "
                      "smallest round trip (of 1,200):\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      Clock offset (subscriber - publisher): -3,000 s ± 12.5 us\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      Forward (publisher -> subscriber): p50 40.0 us"), std::string::npos)
      << text;
  EXPECT_NE(text.find("      Backward (subscriber -> publisher): p50 9.00 us, p99 15.0 us, min "
                      "-1.00 us, max 40.0 us (each ± 12.5 us)\n"),
            std::string::npos)
      << text;
}

TEST(JsonReport, PublisherLatencyIsRoundTripAndHalf)
{
  json sut = parsed(sample_publisher())["publisher"];
  EXPECT_EQ(keys_of(sut),
            (std::set<std::string>{
                "messages_sent", "measured_seconds", "probes_sent", "echoes_received",
                "echoes_late", "echo_bytes_per_echo", "challenges_sent", "payload_fill",
                "transport_lent", "payload_writes", "probes_relayed", "dealt_by_transport",
                "dealt_loss", "send_accounting", "latency", "pacer_lateness_ns", "per_topic"}));
  EXPECT_TRUE(sut["per_topic"].empty()); // one topic: nothing to list
  EXPECT_EQ(sut["dealt_by_transport"], false);
  EXPECT_TRUE(sut["dealt_loss"].is_null()); // only where the transport dealt the messages
  EXPECT_EQ(sut["messages_sent"], 100'000);
  EXPECT_EQ(sut["measured_seconds"], 10.0);
  EXPECT_EQ(sut["probes_sent"], 1'000);
  EXPECT_EQ(sut["echoes_received"], 998);
  EXPECT_EQ(sut["echoes_late"], 1);
  const json& latency = sut["latency"];
  EXPECT_EQ(keys_of(latency), (std::set<std::string>{"rtt_ns", "one_way_ns", "rtt_uncorrected_ns",
                                                     "fanout_skew_ns", "rtt_histogram"}));
  for (const char* name : {"rtt_ns", "one_way_ns", "rtt_uncorrected_ns"}) {
    EXPECT_EQ(keys_of(latency[name]), summary_keys) << name;
    for (const auto& [key, value] : latency[name].items()) {
      EXPECT_TRUE(value.is_number()) << name << "." << key;
    }
  }
  EXPECT_EQ(latency["rtt_ns"]["count"], 998);
  EXPECT_EQ(latency["rtt_ns"]["min"], 20'001);
  EXPECT_EQ(latency["rtt_ns"]["p99_9"], 1'000'000);
  EXPECT_DOUBLE_EQ(latency["rtt_ns"]["mean"].get<double>(), 45'678.5);
  EXPECT_EQ(latency["one_way_ns"]["count"], 998);
  EXPECT_DOUBLE_EQ(latency["one_way_ns"]["min"].get<double>(), 10'000.5);
  EXPECT_DOUBLE_EQ(latency["one_way_ns"]["mean"].get<double>(), 22'839.25);
  EXPECT_DOUBLE_EQ(latency["one_way_ns"]["stddev"].get<double>(), 6'172.8);
  EXPECT_DOUBLE_EQ(latency["one_way_ns"]["p99_99"].get<double>(), 2'280'000.0);
  EXPECT_EQ(latency["rtt_uncorrected_ns"]["p50"], 41'000);
}

TEST(JsonReport, OneObjectPerSubscriber)
{
  json subscribers = parsed(sample_publisher())["subscribers"];
  ASSERT_EQ(subscribers.size(), 2u);
  const json& sut = subscribers[0];
  EXPECT_EQ(keys_of(sut), publisher_view_keys());
  EXPECT_EQ(sut["id"], 1);
  EXPECT_EQ(sut["outcome"], "complete");
  EXPECT_EQ(sut["restarts"], 0);
  EXPECT_EQ(sut["restarted_seconds"], -1.0);
  EXPECT_EQ(sut["counters_received"], true);
  EXPECT_EQ(sut["joined_late"], false);
  EXPECT_EQ(sut["received"], 99'990);
  EXPECT_EQ(sut["unique"], 99'990);
  EXPECT_EQ(sut["lost"], 10);
  EXPECT_DOUBLE_EQ(sut["loss_percent"].get<double>(), 0.01);
  EXPECT_EQ(sut["out_of_order"], 2);
  EXPECT_EQ(sut["gaps"], 3);
  EXPECT_EQ(sut["payload_bytes"], 99'990 * 128);
  EXPECT_EQ(sut["wire_bytes"], 99'990 * 180);
  EXPECT_EQ(sut["probes_sent"], 1'000);
  EXPECT_EQ(sut["echoes"], 998);
  EXPECT_EQ(sut["probes_echoed"], 1'000);
  EXPECT_EQ(sut["warmup_received"], 5'000);
  EXPECT_EQ(keys_of(sut["throughput"]),
            (std::set<std::string>{"seconds", "messages_per_second", "datagrams_per_second",
                                   "payload_bytes_per_second", "wire_bytes_per_second"}));
  EXPECT_DOUBLE_EQ(sut["throughput"]["seconds"].get<double>(), 9.999);
  EXPECT_DOUBLE_EQ(sut["throughput"]["messages_per_second"].get<double>(), 99'989 / 9.999);
  EXPECT_EQ(keys_of(sut["latency"]),
            (std::set<std::string>{"rtt_ns", "one_way_ns", "cross_clock"}));
  EXPECT_EQ(keys_of(sut["latency"]["one_way_ns"]), summary_keys);
  EXPECT_DOUBLE_EQ(sut["latency"]["one_way_ns"]["p50"].get<double>(), 20'000.5);

  const json& late = subscribers[1];
  EXPECT_EQ(keys_of(late), publisher_view_keys());
  EXPECT_EQ(late["outcome"], "vanished");
  EXPECT_EQ(late["joined_late"], true);
  EXPECT_EQ(late["counters_received"], false);
  EXPECT_EQ(late["loss_percent"], 0.0);
  EXPECT_EQ(late["latency"]["rtt_ns"]["count"], 0);
}

TEST(JsonReport, SubscriberRoleHasItsOwnBlockOnly)
{
  json sut = parsed(sample_subscriber_report());
  EXPECT_EQ(keys_of(sut), (std::set<std::string>{"schema_version", "tool", "command_line", "host",
                                                 "settings", "endpoint", "run_id", "result",
                                                 "rejected", "foreign_run_messages", "resources",
                                                 "subscriber", "abandoned_runs"}));
  EXPECT_EQ(sut["settings"]["role"], "subscriber");
  EXPECT_TRUE(sut["abandoned_runs"].is_array());
  EXPECT_TRUE(sut["abandoned_runs"].empty());
  EXPECT_EQ(sut["settings"]["id"], 1);
  std::set<std::string> expected = subscriber_keys;
  expected.insert("end_received");
  expected.insert("ended_by");
  expected.insert("per_publisher");
  EXPECT_EQ(keys_of(sut["subscriber"]), expected);
  EXPECT_TRUE(sut["subscriber"]["per_publisher"].empty()); // one publisher: no streams to list
  EXPECT_EQ(sut["subscriber"]["ended_by"], "end");
  EXPECT_EQ(sut["subscriber"]["end_received"], true);
  EXPECT_EQ(sut["subscriber"]["received"], 99'990);
}

TEST(JsonReport, AbandonedRunsCarryTheirRunIdAndPartialFigures)
{
  RunReport report = sample_subscriber_report();
  report.ended_by = RunEnding::publisher_silent;
  AbandonedRun abandoned;
  abandoned.run_id = 0xfedcba9876543210ULL;
  abandoned.figures.counters.received = 1'234;
  report.abandoned_runs.push_back(abandoned);
  json sut = parsed(report);
  EXPECT_EQ(sut["subscriber"]["ended_by"], "publisher_silent");
  ASSERT_EQ(sut["abandoned_runs"].size(), 1u);
  const json& run = sut["abandoned_runs"][0];
  EXPECT_EQ(keys_of(run), (std::set<std::string>{"run_id", "subscriber"}));
  EXPECT_EQ(run["run_id"], "fedcba9876543210");
  EXPECT_EQ(run["subscriber"]["received"], 1'234);
  EXPECT_EQ(run["subscriber"]["end_received"], false);
  EXPECT_EQ(run["subscriber"]["ended_by"], "publisher_restarted");
}

TEST(JsonReport, OutcomeNamesAreStable)
{
  EXPECT_STREQ(to_string(SubscriberOutcome::complete), "complete");
  EXPECT_STREQ(to_string(SubscriberOutcome::left_early), "left_early");
  EXPECT_STREQ(to_string(SubscriberOutcome::vanished), "vanished");
  EXPECT_STREQ(to_string(SubscriberOutcome::restarted), "restarted");
  EXPECT_STREQ(to_string(RunEnding::end), "end");
  EXPECT_STREQ(to_string(RunEnding::publisher_silent), "publisher_silent");
  EXPECT_STREQ(to_string(RunEnding::no_publisher), "no_publisher");
  EXPECT_STREQ(to_string(RunEnding::publisher_restarted), "publisher_restarted");
  EXPECT_STREQ(to_string(RunEnding::interrupted), "interrupted");
  EXPECT_STREQ(to_string(RunEnding::transport_failed), "transport_failed");
}

TEST(JsonReport, SubscriberWithoutCountersIsNull)
{
  RunReport report = sample_subscriber_report();
  report.self.reset();
  json sut = parsed(report);
  ASSERT_TRUE(sut.contains("subscriber"));
  EXPECT_TRUE(sut["subscriber"].is_null());
}

TEST(JsonReport, NonFiniteNumbersBecomeZero)
{
  RunReport report = sample_publisher();
  report.rtt.mean_ns = std::nan("");
  report.measured_seconds = std::numeric_limits<double>::infinity();
  report.subscribers[0].throughput.messages_per_second = std::nan("");
  report.config.test_seconds = std::nan("");
  json sut = parsed(report);
  EXPECT_EQ(sut["publisher"]["latency"]["rtt_ns"]["mean"], 0.0);
  EXPECT_EQ(sut["publisher"]["latency"]["one_way_ns"]["mean"], 0.0);
  EXPECT_EQ(sut["publisher"]["measured_seconds"], 0.0);
  EXPECT_EQ(sut["subscribers"][0]["throughput"]["messages_per_second"], 0.0);
  EXPECT_EQ(sut["settings"]["test_seconds"], 0.0);
  std::string text = report_to_json(report).dump();
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Infinity"), std::string::npos);
}

// ---- what a new user meets (issue 31) ----

std::size_t line_count(const std::string& text)
{
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(TextReport, AFailedWaitIsAShortReportNotLinesOfZeroes)
{
  RunReport report = sample_publisher();
  report.subscribers.clear();
  report.messages_sent = 0;
  report.success = false;
  report.problems = {"no subscriber announced itself within --wait 10 s"};
  const std::string text = text_of(report);

  EXPECT_LE(line_count(text), 12U) << text;
  EXPECT_TRUE(has_line(text, "Test: FAIL")) << text;
  EXPECT_TRUE(has_line(text, "  Hosts: 127.0.0.1:40000 (bound), 127.0.0.1:40001 (peer)")) << text;
  EXPECT_TRUE(has_line(text, "  Wait: 10 s (--wait)")) << text;
  EXPECT_EQ(text.find("Messages received: 0"), std::string::npos) << text;
}

TEST(TextReport, ASubscriberThatHeardNoPublisherGetsTheShortReport)
{
  RunReport report = sample_subscriber_report();
  report.end_received = false;
  report.ended_by = RunEnding::no_publisher;
  report.self->counters = {};
  const std::string text = text_of(report);

  EXPECT_LE(line_count(text), 12U) << text;
  EXPECT_TRUE(has_line(text, "Nothing was measured.")) << text;
}

TEST(JsonReport, AFailedWaitKeepsEveryKey)
{
  RunReport report = sample_publisher();
  const std::set<std::string> full = keys_of(parsed(report));
  report.subscribers.clear();
  report.messages_sent = 0;

  EXPECT_EQ(keys_of(parsed(report)), full);
}

TEST(TextReport, NoDatagramsLineWhereTheTransportSendsNone)
{
  RunReport report = sample_publisher();
  report.endpoint.sends_datagrams = false; // a stream or message transport: tcp, zmq
  EXPECT_EQ(text_of(report).find("Datagrams:"), std::string::npos);

  report.subscribers.at(0).counters.datagrams += 1; // unless it counted them apart
  EXPECT_NE(text_of(report).find("Datagrams:"), std::string::npos);
}

TEST(TextReport, CrossClockLeadsWhenItsBoundIsSmallBesideTheFigures)
{
  RunReport report = sample_publisher();
  CrossClockLatency cross = sample_cross_clock();
  cross.forward.p50_ns = 213'000'000; // a shaped link: 213 ms forward, microseconds back
  cross.forward.min_ns = 212'000'000;
  cross.bound_ns = 20'000;
  report.subscribers.resize(1); // leads with one subscriber: its two directions are the run's
  report.subscribers.at(0).cross_clock = cross;
  const std::string text = text_of(report);

  const std::size_t across = text.find("  One-way, publisher -> subscriber (across clocks):\n"
                                       "    each ± 20.0 us, the clock offset's error bound\n");
  const std::size_t half = text.find("  One-way (RTT/2), half the round trip, both directions:");
  ASSERT_NE(across, std::string::npos) << text;
  ASSERT_NE(half, std::string::npos) << text;
  EXPECT_LT(across, half);
  EXPECT_NE(text.find("    p50: 213 ms\n", across), std::string::npos) << text;
  EXPECT_NE(text.find("  One-way, subscriber -> publisher: p50 9.00 us"), std::string::npos)
      << text;
}

TEST(TextReport, RttHalfLeadsWhenTheCrossClockBoundIsLarge)
{
  RunReport report = sample_publisher();
  report.subscribers.resize(1);
  report.subscribers.at(0).cross_clock = sample_cross_clock(); // ± 12.5 us beside 40 us

  const std::string text = text_of(report);

  EXPECT_TRUE(has_line(text, "  One-way (RTT/2):")) << text;
  EXPECT_EQ(text.find("(across clocks)"), std::string::npos) << text;
}

// A subscriber of several publishers lists what it counted of each one's stream.
TEST(JsonReport, ASubscriberOfSeveralPublishersListsEachStream)
{
  RunReport report = sample_subscriber_report();
  report.config.publishers = 2;
  for (std::uint32_t publisher = 0; publisher < 2; ++publisher) {
    PublisherStream stream;
    stream.publisher = publisher;
    stream.address = "127.0.0.1:4000" + std::to_string(publisher);
    stream.figures = *report.self;
    stream.figures.counters.received = 500 + publisher;
    stream.end_received = true;
    report.per_publisher.push_back(stream);
  }
  const json sut = parsed(report);
  EXPECT_EQ(sut["settings"]["publishers"], 2);
  const json& streams = sut["subscriber"]["per_publisher"];
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[1]["publisher"], 1);
  EXPECT_EQ(streams[1]["address"], "127.0.0.1:40001");
  EXPECT_EQ(streams[1]["received"], 501);
  EXPECT_TRUE(streams[1].contains("lost"));

  std::ostringstream text;
  write_text_report(text, report);
  EXPECT_NE(text.str().find("Publishers: 2 (each on its own stream"), std::string::npos);
  EXPECT_NE(text.str().find("  Publisher 1, at 127.0.0.1:40001:\n    Messages received: 501"),
            std::string::npos)
      << text.str();
}

// A publisher of several topics lists each one's figures in its JSON and its text.
TEST(JsonReport, APublisherOfSeveralTopicsListsEachTopic)
{
  RunReport report = sample_publisher();
  report.config.topics = 2;
  for (std::uint32_t topic = 0; topic < 2; ++topic) {
    TopicStream stream;
    stream.topic = topic;
    stream.address = "127.0.0.1:4000" + std::to_string(topic);
    stream.success = true;
    stream.messages_sent = 700 + topic;
    stream.probes_sent = 7;
    stream.echoes_received = 7;
    stream.rtt.count = 7;
    stream.rtt.p50_ns = 25'000;
    stream.rtt.p99_ns = 80'000;
    stream.subscribers = report.subscribers;
    report.per_topic.push_back(stream);
  }
  const json sut = parsed(report);
  EXPECT_EQ(sut["settings"]["topics"], 2);
  const json& topics = sut["publisher"]["per_topic"];
  ASSERT_EQ(topics.size(), 2u);
  EXPECT_EQ(topics[1]["topic"], 1);
  EXPECT_EQ(topics[1]["messages_sent"], 701);
  EXPECT_EQ(topics[1]["latency"]["rtt_ns"]["p50"], 25'000);
  EXPECT_EQ(topics[1]["subscribers"].size(), report.subscribers.size());

  std::ostringstream text;
  write_text_report(text, report);
  EXPECT_NE(text.str().find("  Topic 1, at 127.0.0.1:40001: SUCCESS, sent 701, probes 7, "
                            "echoes 7, RTT p50 25.0 us p99 80.0 us\n"),
            std::string::npos)
      << text.str();
}

} // namespace
} // namespace netprof
