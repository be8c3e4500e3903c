#pragma once

// One report model; formatters (text, JSON) only present it. Nothing here measures.

#include <netprof/config.hpp>
#include <netprof/histogram.hpp>
#include <netprof/send_accounting.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace netprof {

struct HostFacts {
  std::string hostname;
  std::string kernel; // uname -sr
  std::string cpu_model;
  unsigned cores = 0;
  std::string clock_source; // /sys/devices/system/clocksource/clocksource0/current_clocksource
  // cpufreq's scaling governor of every CPU ("performance"), "mixed" when they differ; empty
  // where the kernel has no cpufreq (most VMs)
  std::string cpu_governor;
  // cpuidle's driver ("haltpoll" in a KVM guest, "intel_idle", "acpi_idle"); empty without one
  std::string cpu_idle_driver;
  // Under haltpoll: how long an idle vCPU polls before it halts (0: it halts at once, and each
  // wake-up of a sleeping receiver may be a halted vCPU's, woken through the hypervisor)
  std::optional<std::uint64_t> guest_halt_poll_ns;
  std::uint64_t rmem_default = 0, rmem_max = 0, wmem_default = 0, wmem_max = 0; // net.core.*
};

HostFacts collect_host_facts();

// The host's CPU time so far, in clock ticks, from the first line of /proc/stat.
struct CpuTimes {
  std::uint64_t total = 0; // user, nice, system, idle, iowait, irq, softirq, steal
  std::uint64_t steal = 0; // time a hypervisor ran something else on this VM's CPUs
};

// None when the text does not start with an aggregate "cpu" line of at least eight numbers.
std::optional<CpuTimes> parse_cpu_times(std::string_view proc_stat);
std::optional<CpuTimes> read_cpu_times();

// The share of CPU time stolen between two readings, in percent; none when either is missing
// or no time passed.
std::optional<double> steal_percent(const std::optional<CpuTimes>& before,
                                    const std::optional<CpuTimes>& after) noexcept;

// Rates on the subscriber's own clock, first to last measured message.
struct Throughput {
  double seconds = 0.0;
  double messages_per_second = 0.0;
  double datagrams_per_second = 0.0;
  double payload_bytes_per_second = 0.0;
  double wire_bytes_per_second = 0.0;
};

// N messages span N-1 intervals: rates are (N-1)/(last-first); zero when fewer than two.
Throughput compute_throughput(const wire::SubscriberCounters& counters) noexcept;

// One-way latency across clocks (publisher only): the subscriber's clock offset estimated from
// the probe exchanges as NTP does (docs/methodology.md), and each direction's one-way time
// corrected by it. Every figure here is uncertain by ± bound_ns, the offset's error bound.
struct CrossClockLatency {
  std::uint64_t exchanges = 0;      // echoes with the subscriber's stamps, warm-up included
  std::uint64_t exchanges_used = 0; // the ones with the smallest round trip, the offset's source
  std::int64_t offset_ns = 0;       // subscriber clock minus publisher clock
  std::int64_t bound_ns = 0;        // ± : half the smallest round trip (minus turnaround)
  std::int64_t min_delay_ns = 0;    // that smallest round trip
  LatencySummary forward;           // publisher -> subscriber, measured probes
  LatencySummary backward;          // subscriber -> publisher, their echoes
  // t3 - t2 of the measured exchanges, on the subscriber's clock alone (no offset, no bound),
  // inside every round trip: netprof's opening of the probe and encoding of the echo, and on a
  // transport that delivers in place, the subscriber's first reads of the message.
  LatencySummary turnaround;
  // Measured exchanges whose one-way time fell outside what the histograms hold (the offset
  // moved by more than a round trip during the run): left out of forward and backward.
  std::uint64_t out_of_range = 0;
};

// What became of a subscriber, as its publisher saw it.
enum class SubscriberOutcome {
  complete,   // its final counters arrived from the process that took part
  left_early, // it said it was leaving (interrupted): counters up to its departure
  vanished,   // no final counters: it died or was cut off (last_heard_seconds says when)
  restarted,  // a new process took over its id during the measured phase: the counters are
              // the new process's only, so they cover part of the run
};
const char* to_string(SubscriberOutcome outcome) noexcept;

// How a subscriber's run ended, on the subscriber.
enum class RunEnding {
  end,                 // the publisher's END arrived
  publisher_silent,    // nothing from the publisher for --idle-timeout (killed?)
  no_publisher,        // no publisher answered within --wait
  publisher_restarted, // a new publisher took this subscriber into a new run
  interrupted,         // SIGINT/SIGTERM
  transport_failed,
};
const char* to_string(RunEnding ending) noexcept;

struct SubscriberResult {
  std::uint32_t id = 0;
  bool counters_received = false; // its final counters reached the publisher
  bool joined_late = false;       // first hello arrived after the measured phase began
  // The first measured sequence it is charged with: what was sent before it joined (this many
  // messages) is neither received nor lost. Publisher: measured messages sent before its first
  // hello; subscriber: its first measured message's, when it joined late. 0: from the start.
  std::uint64_t joined_at_sequence = 0;
  bool left_early = false;        // it said it was leaving before the end of the test
  double last_heard_seconds = -1; // publisher clock, from the start of the measured phase to
                                  // the last message from it; -1 if never heard in that phase
  wire::SubscriberCounters counters;
  Throughput throughput;
  std::uint64_t lost = 0; // messages_owed minus unique received
  // Publisher: the measured messages sent that this subscriber was to receive: all of them
  // since it joined, or under --fanout round-robin those dealt to it. Subscriber: 0.
  std::uint64_t messages_owed = 0;
  std::uint64_t probes_sent = 0; // probes this subscriber was expected to echo
  std::uint64_t echoes = 0;      // echoes that came back in time
  LatencySummary rtt;            // round trips of this subscriber's echoes
  // Subscriber only: its receive time minus the publisher's send stamp, for every measured
  // message. Both read CLOCK_MONOTONIC, so this is exact when they share a host and means
  // nothing across hosts (until a clock-offset estimate exists, nothing tells which it is).
  LatencySummary one_way;
  // Publisher only:
  std::optional<CrossClockLatency> cross_clock; // none without stamped echoes
  SubscriberOutcome outcome = SubscriberOutcome::complete;
  std::uint32_t restarts = 0;    // times a new process took over this id (any phase)
  double restarted_seconds = -1; // measured-phase seconds of the last restart; -1 if none
                                 // happened after the measured phase began
  bool id_clash = false; // two live processes answered to this id (told by their instance tags)
  std::string refused_counters; // why counters sent under this id were refused as impossible
  // What the subscriber process cost (CPU, peak memory) until it sent its counters; none when
  // they did not come, or came from a subscriber that predates it.
  std::optional<wire::ProcessUsage> usage;
  // Measured messages the subscriber dropped on purpose (--drop-rate), within `lost`.
  std::uint64_t injected_drops = 0;
  // Its own clock, from its start to the publisher's first acknowledgement (discovery and the
  // handshake); none when unknown (never acknowledged, or a subscriber that predates it).
  std::optional<double> join_seconds;
};

// A run a subscriber took part in until its publisher was replaced by a new one: the figures
// it had then, partial (no END, so loss is unknown).
struct AbandonedRun {
  std::uint64_t run_id = 0;
  SubscriberResult figures;
};

// lost / (unique + lost) * 100: the share of what the publisher sent that never arrived;
// 0 when nothing was sent. The one definition the text, JSON and --max-loss all use.
double loss_percent(const SubscriberResult& result) noexcept;

// --fanout round-robin dealt by the transport (MessageDealer): nobody knows what went to each
// subscriber, only what they all received together against what was sent.
struct DealtLoss {
  std::uint64_t sent = 0;
  std::uint64_t received = 0; // distinct messages, summed over the subscribers whose counters came
  std::uint64_t lost = 0;     // sent minus received; what a subscriber that sent no counters
                              // got is in it too
  double percent() const noexcept
  {
    return sent > 0 ? 100.0 * static_cast<double>(lost) / static_cast<double>(sent) : 0.0;
  }
};

DealtLoss dealt_loss(std::uint64_t sent, const std::vector<SubscriberResult>& subscribers) noexcept;

// One interval of --interval: what happened between two boundaries of the measured phase,
// on this process's clock. The publisher fills `sends` and `echoes` (latency: the RTT of the
// echoes that arrived in it); a subscriber fills `lost` (latency: receive minus send stamp,
// meaningful on one host only).
struct IntervalFigures {
  double start_seconds = 0.0; // from the start of the measured phase (subscriber: its first
  double end_seconds = 0.0;   // measured message)
  std::uint64_t messages = 0; // publisher: sent; subscriber: received
  std::uint64_t payload_bytes = 0;
  SendAccounting sends;
  std::uint64_t echoes = 0;
  std::uint64_t lost = 0; // new gaps in the sequence numbers (a late arrival fills one later)
  std::uint64_t latency_count = 0;
  std::int64_t latency_p50_ns = 0;
  std::int64_t latency_p99_ns = 0;
};

// The line --interval prints for one interval, as iperf3 -i does.
std::string format_interval_line(const IntervalFigures& interval, Role role);

// How much the scheduler stood between a role and its CPU over its run.
struct SchedulerLoad {
  double seconds = 0.0;                   // over which the figures below were taken
  std::uint64_t involuntary_switches = 0; // the role's threads taken off a CPU they wanted
  double run_queue_wait_seconds = 0.0;    // the role's thread runnable but waiting for a CPU
  std::uint32_t runnable_threads = 0;     // on the whole host, at the end of the run
  std::uint32_t cores_given = 0;          // CPUs this role may run on (its affinity)
  std::uint32_t online_cores = 0;         // CPUs of the host
};

// A subscriber of several streams (--publishers, --topics): what it counted of one.
struct PublisherStream {
  std::uint32_t publisher = 0; // its id
  std::uint32_t topic = 0;     // which of its topics (--topics)
  std::string address;         // where the subscriber reached it, as the transport tells it
  SubscriberResult figures;
  bool end_received = false;
  RunEnding ended_by = RunEnding::end;
};

// A publisher of several topics (--topics): one topic's stream, as its own report gave it.
struct TopicStream {
  std::uint32_t topic = 0;
  std::string address; // where it publishes, as the transport tells it
  bool success = false;
  std::uint64_t messages_sent = 0;
  std::uint64_t probes_sent = 0;
  std::uint64_t echoes_received = 0;
  LatencySummary rtt;
  std::vector<SubscriberResult> subscribers;
};

struct RunReport {
  RunConfig config;
  EndpointFacts endpoint;
  HostFacts host;
  std::string version;
  std::string build_type;
  std::string commit; // git commit of the build: 12 hex digits, maybe "-dirty", or "unknown"
  std::uint64_t run_id = 0;

  bool success = false;
  bool interrupted = false;
  std::vector<std::string> problems; // why the test failed, one line each
  std::vector<std::string> warnings; // did not fail the test, but the user should know
  // What a reader must see beside a SUCCESS at once (heavy loss), for the verdict line; empty
  // when nothing is.
  std::string headline;

  // Publisher side.
  std::uint64_t messages_sent = 0; // measured data messages
  std::uint64_t probes_sent = 0;
  std::uint64_t echoes_received = 0;
  std::uint64_t echoes_late = 0; // arrived after --probe-timeout (ping-pong) or unknown
  std::uint64_t echo_bytes = 0;  // of echoes_received, headers included (--echo)
  // The transport lent the memory data messages were written into (MessageLender), and in
  // how many of the measured messages' loans the payload was written (--payload-fill).
  bool transport_lent = false;
  std::uint64_t payload_writes = 0;
  // Ping-pong probes sent on the transport's own thread as it delivered the last echo (a DDS
  // listener, as ddsperf's ping), not on netprof's.
  std::uint64_t probes_relayed = 0;
  // --fanout round-robin was dealt by the transport (MessageDealer), not by netprof: loss is
  // known in total only (dealt_loss).
  bool dealt_by_transport = false;
  std::uint64_t challenges_sent = 0; // address-proof challenges, answering hellos (wire.hpp)
  SendAccounting send_accounting;    // the measured phase's send attempts, by outcome and cause
  LatencySummary rtt;                // intended-send-time based (coordinated omission corrected)
  LatencySummary rtt_uncorrected;    // actual-send-time based
  // For probes every subscriber echoed: the spread between the first and the last echo.
  // Only with two or more subscribers.
  LatencySummary fanout_skew;
  std::vector<HistogramBin> rtt_bins; // the RTT distribution on a log scale
  // With --send-hz: each measured message's actual send time minus its due time, so the
  // reader sees how well the publisher kept its schedule (docs/methodology.md, "Pacing").
  LatencySummary pacer_lateness;
  double measured_seconds = 0.0; // publisher clock, measured phase
  std::vector<SubscriberResult> subscribers;

  // Subscriber side: its own counters (also what it sent back to the publisher).
  std::optional<SubscriberResult> self;
  bool end_received = false;
  RunEnding ended_by = RunEnding::end;
  std::vector<AbandonedRun> abandoned_runs; // earlier runs, oldest first; self is the last run
  // Under --publishers P > 1 or --topics T > 1: each publisher's every topic, publisher 0's
  // topic 0 first; `self` and the rest of a subscriber's report are that first stream's.
  std::vector<PublisherStream> per_publisher;
  // A publisher under --topics T > 1: each topic's stream, topic 0's first; the rest of its
  // report is topic 0's.
  std::vector<TopicStream> per_topic;

  std::uint64_t rejected = 0; // malformed or foreign messages this process ignored
  // Of them, messages of another run (another run id): a second run on this medium, or replays.
  std::uint64_t foreign_run_messages = 0;

  // --interval's intervals, in order; the last one may be shorter (the phase's rest).
  std::vector<IntervalFigures> intervals;

  // What this process cost, measured after its run: CPU time (user, system) and peak RSS.
  std::optional<wire::ProcessUsage> usage;
  // The share of the host's CPU time stolen by the hypervisor while this process ran its role,
  // in percent; none where /proc/stat is unreadable.
  std::optional<double> steal_percent;
  // Whether the scheduler kept this role from running while it measured; none where the
  // kernel does not tell (docs/methodology.md, "An overloaded host").
  std::optional<SchedulerLoad> scheduler;
};

// MADARA's layout, extended: Test:, Settings:, Latency:, Throughput:.
void write_text_report(std::ostream& out, const RunReport& report);

// MADARA network_profiler's layout (Test:, Settings:, Latency: Min/Avg/Max in integer ns,
// Throughput: in packets/s and B/s), for scripts that parse it; what netprof adds comes after.
void write_madara_report(std::ostream& out, const RunReport& report);

// The same content as JSON, with schema_version (docs/json-schema.md).
nlohmann::json report_to_json(const RunReport& report);
inline constexpr int json_schema_version = 1;

// Human-readable numbers with units: "1.23 MB/s", "12.3 us", "1,234,567".
std::string format_count(std::uint64_t value);
std::string format_duration_ns(double ns);
std::string format_bytes(double bytes);
std::string format_rate(double per_second, const char* unit); // unit: "msg", "B"
// Durations, bytes and rates: three significant digits, SI decimal prefixes (k = 1000),
// never an exponent, "n/a" for NaN or infinity.

// A byte total, readable then exact: "128 MB (127,998,720 B)"; below 1 kB only "512 B".
std::string format_byte_total(std::uint64_t bytes);
// A setting as the user typed it: up to three decimals, trailing zeros dropped ("0.5", "1,000").
std::string format_number(double value);
// "0.125%"; a nonzero value below 0.001 reads "< 0.001%", never "0%".
std::string format_percent(double percent);
// 16 lowercase hex digits, as in the text report and JSON "run_id".
std::string format_run_id(std::uint64_t run_id);

} // namespace netprof
