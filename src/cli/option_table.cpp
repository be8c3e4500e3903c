#include "option_table.hpp"

#include "../options/number_parsing.hpp"
#include "../options/value_checks.hpp"
#include "option_fields.hpp"

#include <netprof/errors.hpp>
#include <netprof/qos.hpp>

#include <cstdint>
#include <limits>

namespace netprof::cli {

namespace {

constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t max_size = std::numeric_limits<std::size_t>::max();
// Longest meaningful duration for a seconds option: a day is plenty for a profiling run and
// keeps every conversion to integer nanoseconds far from overflow.
constexpr double max_seconds = 86'400.0;
constexpr double max_hz = 1e9;

WholeNumber whole(std::uint64_t min, std::uint64_t max)
{
  return {min, max, true};
}

// A byte count, taking K, M and G (1024-based) as sweep.py's --sizes does.
WholeNumber bytes(std::uint64_t min, std::uint64_t max)
{
  return {.min = min, .max = max, .names_too_large = true, .byte_suffixes = true};
}

// The shortest meaningful duration for a seconds option. Below a millisecond a probe timeout
// is shorter than a loopback round trip under load (1e-9 sent a flood of probes that all
// timed out), and a run or a wait is over before the other side is scheduled: zero is refused
// for the same reason, and a nanosecond is zero in all but name.
constexpr double min_seconds = 0.001;

RealNumber positive_seconds()
{
  return {min_seconds, true, max_seconds, "seconds from 0.001 to 86400"};
}

// The table's rows are dense, so its specs are made in one call.
OptionSpec spec(const char* names, const char* value_name, ValueRule rule,
                std::optional<std::string> default_text, const char* help,
                PairRoute pair = PairRoute::both)
{
  OptionSpec result = OptionSpec(names, value_name, std::move(rule), help).passed(pair);
  result.default_text = std::move(default_text);
  return result;
}

OptionSpec switch_spec(const char* names, const char* help, PairRoute pair)
{
  return spec(names, "", Switch{}, std::nullopt, help, pair);
}

// The local pair takes a CPU for each of its processes; one process takes one.
void assign_cpus(RunConfig& config, const OptionValues& values, const OptionSpec& cpu)
{
  field<&RunConfig::cpus>(config, values, cpu);
  const std::size_t most = config.local_pair ? 2 : 1;
  if (config.cpus.size() > most) {
    throw UsageError(options::invalid_value(cpu, *values.text(cpu)) +
                     (config.local_pair
                          ? ": --local-pair takes one or two CPU numbers (publisher,subscriber)"
                          : ": one process takes one CPU number (two only with --local-pair)"));
  }
}

// Niceness is signed, which no whole-number rule takes.
void assign_nice(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  const std::optional<std::string> text = values.text(spec);
  if (!text)
    return;
  const auto parsed = options::parse_finite_double(*text);
  if (parsed.status != options::NumberStatus::ok || parsed.value < -20 || parsed.value > 19 ||
      parsed.value != static_cast<double>(static_cast<int>(parsed.value)))
    throw UsageError(options::invalid_value(spec, *text) +
                     ": expected a whole number from -20 (most favoured) to 19");
  config.nice = static_cast<int>(parsed.value);
}

// In the order of the choice's names: reliable, best-effort.
void assign_reliability(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  if (const auto index = values.choice(spec))
    config.qos.reliability = *index == 0 ? Reliability::reliable : Reliability::best_effort;
}

void assign_history(RunConfig& config, const OptionValues& values, const OptionSpec& spec)
{
  if (const auto text = values.text(spec))
    config.qos.history = parse_history(*text);
}

void add_general(std::vector<CoreOption>& rows)
{
  const std::string heading = "General";
  const PairRoute none = PairRoute::neither;
  rows.insert(
      rows.end(),
      {
          {heading,
           switch_spec("help,h",
                       "print this help and exit; --help TRANSPORT: that transport's options; "
                       "--help all: every option",
                       none),
           Readers::none},
          {heading, switch_spec("version", "print the version and exit", none), Readers::none},
          {heading,
           switch_spec("list-transports",
                       "print the name and summary of every transport in "
                       "this build, one per line, and exit (for scripts); with --json, one "
                       "JSON object that also gives each transport's options and its "
                       "arguments on loopback, for a local pair and for a publisher and "
                       "--subscribers N subscribers",
                       none),
           Readers::none},
          {heading,
           spec("id,i", "N", whole(0, 65'535), "0",
                "0: the publisher; N >= 1: subscriber N (at most 65535)", none),
           Readers::both, field<&RunConfig::id>},
          {heading,
           switch_spec("local-pair",
                       "run a subscriber and a publisher as two processes on "
                       "loopback and print the publisher's report (transport: udp unless one "
                       "is given)",
                       none),
           Readers::none, field<&RunConfig::local_pair>},
          {heading,
           switch_spec("threads",
                       "with --local-pair: run the publisher and the subscriber as two threads "
                       "of one process, each with an endpoint of its own (zmq also over "
                       "inproc://).",
                       none),
           Readers::none, field<&RunConfig::threads>},
      });
}

void add_test(std::vector<CoreOption>& rows)
{
  const std::string heading = "Test";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("size,s", "BYTES", bytes(1, max_size), "128",
                "payload bytes per message (>= 1; 1K = 1024, M and G too)"),
           Readers::both, field<&RunConfig::payload_size>},
          {heading,
           spec("queue-length,q", "BYTES", bytes(0, max_size), "1000000",
                "socket buffers or ring capacity in bytes; 0 = OS default"),
           Readers::both, field<&RunConfig::queue_length>},
          {heading,
           spec("time,t", "SECONDS", positive_seconds(), "10",
                "length of the measured phase; fractions allowed (0.001 to 86400)"),
           Readers::publisher, field<&RunConfig::test_seconds>},
          {heading,
           spec("count", "N", whole(1, unbounded), std::nullopt,
                "measure N messages instead of a time (>= 1)"),
           Readers::both, field<&RunConfig::count>},
          {heading,
           spec("send-hz", "HZ",
                RealNumber{0.0, true, max_hz,
                           "a rate in Hz from 0 to 1e9 (0 = as fast as possible)"},
                "0", "messages per second; 0 = as fast as possible (at most 1e9)"),
           Readers::publisher, field<&RunConfig::send_hz>},
          {heading,
           spec("pace", "sleep|spin|hybrid",
                Choice{{to_string(PaceMode::sleep), to_string(PaceMode::spin),
                        to_string(PaceMode::hybrid)}},
                to_string(PaceMode::hybrid),
                "with --send-hz, how the publisher waits for each message's due time: sleep "
                "(the wait strategy's wait; the kernel wakes it late), spin (polls; burns the "
                "core), hybrid (sleeps until shortly before, then polls)",
                PairRoute::publisher_only),
           Readers::publisher, field<&RunConfig::pace>},
          {heading,
           spec("num-vars", "N", whole(0, 65'535), "0",
                "variables per message (at most 65535); 0 = one opaque payload"),
           Readers::publisher, field<&RunConfig::num_vars>},
          {heading,
           spec("payload-fill", "once|every-message",
                Choice{{to_string(PayloadFill::once), to_string(PayloadFill::every_message)}},
                to_string(PayloadFill::once),
                "where the transport lends the memory a message is written into (iceoryx, shm): "
                "once writes the payload the first time a buffer is lent and then only the "
                "header, as iceperf does; every-message writes the whole payload every time, "
                "so the run measures that copy too",
                PairRoute::publisher_only),
           Readers::publisher, field<&RunConfig::payload_fill>},
          // The local pair starts one subscriber and tells its publisher so itself.
          {heading,
           spec("subscribers", "N", whole(0, 1'024), "1",
                "the publisher waits for hellos from N subscribers; 0 = start at once (at "
                "most 1024)",
                PairRoute::neither),
           Readers::publisher, field<&RunConfig::subscribers>},
          {heading,
           spec("wait", "SECONDS", positive_seconds(), "10",
                "how long either side waits for its peer (0.001 to 86400)"),
           Readers::both, field<&RunConfig::wait_seconds>},
          {heading,
           spec("warmup-time", "SECONDS",
                RealNumber{0.0, true, max_seconds, "seconds from 0 to 86400"}, "0.5",
                "unmeasured warm-up before the measured phase"),
           Readers::publisher, field<&RunConfig::warmup_seconds>},
          {heading,
           spec("warmup-count", "N", whole(0, unbounded), std::nullopt,
                "warm up with N messages instead of a time"),
           Readers::publisher, field<&RunConfig::warmup_count>},
          {heading,
           spec("max-loss", "PERCENT", RealNumber{0.0, true, 100.0, "a percentage from 0 to 100"},
                std::nullopt,
                "FAIL when a subscriber loses more than this share of messages (0 to 100)"),
           Readers::both, field<&RunConfig::max_loss_percent>},
          {heading,
           spec("drop-rate", "PERCENT", RealNumber{0.0, true, 100.0, "a percentage from 0 to 100"},
                "0",
                "subscriber: drop this share of received data before counting it (a known "
                "loss, to check loss handling against)",
                PairRoute::subscriber_only),
           Readers::subscriber, field<&RunConfig::drop_percent>},
          {heading,
           spec("drop-seed", "N", whole(0, unbounded), "1",
                "seed of --drop-rate's choice of messages: the same seed drops the same ones",
                PairRoute::subscriber_only),
           Readers::subscriber, field<&RunConfig::drop_seed>},
      });
}

// Both roles get them: where the publisher's alone decides, a subscriber's states what it
// expects (Transport::effective_qos says which, and the report shows it).
void add_quality_of_service(std::vector<CoreOption>& rows)
{
  const std::string heading = "Quality of service (docs/transports.md)";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("reliability", "reliable|best-effort", Choice{{"reliable", "best-effort"}},
                std::nullopt,
                "reliable: nothing is lost, the publisher waits instead (shm keep-all, "
                "--zmq-nodrop, tcp, uds, mq); best-effort: a full queue or a lost datagram "
                "loses messages (udp, shm keep-last, zmq). Refused, with why, where the "
                "transport cannot; without it, the transport's own is stated in the report"),
           Readers::both, assign_reliability},
          {heading,
           spec("history", "keep-last[:N]|keep-all", Text{}, std::nullopt,
                "keep-last: a reader that lags loses what it did not read in time (N: the "
                "messages kept, where the transport counts them, 1 to 2147483647); keep-all: "
                "the publisher waits for its slowest reader. Refused where it has no meaning "
                "(udp)"),
           Readers::both, assign_history},
      });
}

void add_latency(std::vector<CoreOption>& rows)
{
  const std::string heading = "Latency";
  rows.insert(
      rows.end(),
      {
          {heading,
           spec("mode", "stream|ping-pong",
                Choice{{to_string(Mode::stream), to_string(Mode::ping_pong)}}, "stream",
                "stream: probes sampled under load; ping-pong: one probe in flight, no load"),
           Readers::publisher, field<&RunConfig::mode>},
          {heading,
           spec("probe-hz", "HZ", RealNumber{0.0, false, max_hz, "a rate in Hz > 0, at most 1e9"},
                "1000", "probes per second in stream mode (> 0)"),
           Readers::publisher, field<&RunConfig::probe_hz>},
          {heading,
           spec("probe-timeout", "SECONDS", positive_seconds(), "1",
                "ping-pong: how long a probe waits for its echoes before the next is sent; a "
                "later echo is still measured, and reported as late"),
           Readers::publisher, field<&RunConfig::probe_timeout_seconds>},
          {heading,
           spec("echo", "record|full",
                Choice{{to_string(EchoSize::record), to_string(EchoSize::full)}}, "record",
                "what a subscriber sends back for each probe: record, its header and stamps "
                "(68 B); full, as many bytes as the probe (as sockperf, ddsperf and iceperf do)"),
           Readers::publisher, field<&RunConfig::echo>},
          {heading,
           spec("idle-timeout", "SECONDS", positive_seconds(), "3",
                "a subscriber gives up on a silent publisher after this"),
           Readers::subscriber, field<&RunConfig::idle_timeout_seconds>},
      });
}

void add_waiting_and_output(std::vector<CoreOption>& rows)
{
  const std::string waiting = "Waiting and pinning";
  const std::string output = "Output";
  // The pair's subscriber writes no report: the publisher's consolidated one covers both.
  const PairRoute publisher = PairRoute::publisher_only;
  rows.insert(
      rows.end(),
      {
          {waiting,
           spec("wait-strategy", "block|poll-then-block|yield|spin",
                Choice{{to_string(WaitStrategy::block), to_string(WaitStrategy::poll_then_block),
                        to_string(WaitStrategy::yield), to_string(WaitStrategy::spin)}},
                "block",
                "block: every receive sleeps in the kernel, as a blocking program's does (kind "
                "to a shared machine); poll-then-block: a few polls while messages flow, then "
                "sleep; yield: poll, giving the core away between polls; spin: busy-poll "
                "(lowest latency, burns a core)"),
           Readers::both, field<&RunConfig::wait_strategy>},
          {waiting,
           spec("cpu", "LIST", CpuList{}, std::nullopt,
                "pin to this CPU; with --local-pair PUB,SUB (or PUB alone), each process or "
                "thread to its own; each below the number of online CPUs",
                PairRoute::split),
           Readers::both, assign_cpus},
          {waiting,
           spec("nice", "N", Text{}, std::nullopt,
                "run at this niceness, -20 (most favoured) to 19; below 0 needs root or "
                "CAP_SYS_NICE"),
           Readers::both, assign_nice},
          {waiting,
           spec("rt-priority", "N", whole(1, 99), std::nullopt,
                "run under SCHED_FIFO at this priority (1 to 99); needs root, CAP_SYS_NICE or "
                "an RLIMIT_RTPRIO that allows it"),
           Readers::both, field<&RunConfig::rt_priority>},
          {output,
           spec("json", "FILE", FilePath{}, std::nullopt,
                "also write the report as JSON to FILE; - writes it to stdout, and the text "
                "report to stderr (never through a link in a folder others may write to, nor "
                "over another user's file: exit 2)",
                publisher),
           Readers::both, field<&RunConfig::json_path>},
          {output,
           spec("format", "netprof|madara",
                Choice{{to_string(ReportFormat::netprof), to_string(ReportFormat::madara)}},
                "netprof",
                "the report's layout on stdout: netprof's own, or MADARA network_profiler's "
                "(its field names and units, for scripts that parse it)",
                publisher),
           Readers::both, field<&RunConfig::report_format>},
          {output,
           spec("interval", "SECONDS", positive_seconds(), std::nullopt,
                "print a line of figures every SECONDS of the measured phase (as iperf3 -i): "
                "messages, bytes, loss, send attempts, latency p50/p99; the JSON gets "
                "intervals[] (> 0, at most the run's -t)"),
           Readers::both, field<&RunConfig::interval_seconds>},
          {output, switch_spec("quiet", "no report on stdout and no status line", publisher),
           Readers::both, field<&RunConfig::quiet>},
          {output,
           switch_spec("histogram",
                       "add the one-way latency distribution to the report, as "
                       "text bars",
                       publisher),
           Readers::both, field<&RunConfig::print_histogram>},
      });
}

void add_security(std::vector<CoreOption>& rows)
{
  rows.push_back(
      {"Security",
       spec("key-file", "FILE", Text{}, std::nullopt,
            "a shared secret (16 B or more, readable by its owner alone) that every process of "
            "the run is given: every control message (join, end, final counters) is then "
            "authenticated, for networks you do not trust"),
       Readers::both, field<&RunConfig::key_file>});
}

} // namespace

const std::vector<CoreOption>& core_option_table()
{
  static const std::vector<CoreOption> rows = [] {
    std::vector<CoreOption> all;
    add_general(all);
    add_test(all);
    add_quality_of_service(all);
    add_latency(all);
    add_waiting_and_output(all);
    add_security(all);
    return all;
  }();
  return rows;
}

std::vector<OptionGroup> core_option_groups()
{
  std::vector<OptionGroup> groups;
  for (const CoreOption& row : core_option_table()) {
    if (groups.empty() || groups.back().caption != row.heading) {
      groups.push_back({row.heading, {}});
    }
    groups.back().options.push_back(row.spec);
  }
  return groups;
}

RunConfig core_config(const OptionValues& values)
{
  RunConfig config;
  for (const CoreOption& row : core_option_table()) {
    if (row.assign != nullptr) {
      row.assign(config, values, row.spec);
    }
  }
  config.role = config.id == 0 ? Role::publisher : Role::subscriber;
  return config;
}

} // namespace netprof::cli
