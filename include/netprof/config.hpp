#pragma once

// What the user asked for, after parsing and validation. Transport-specific options are not
// here: each transport keeps its own (see registry.hpp).

#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace netprof {

enum class Mode {
  stream,   // a continuous stream; some messages are probes (latency under load)
  ping_pong // one probe in flight, no background stream (unloaded latency)
};

enum class WaitStrategy {
  block, // every receive sleeps in the kernel (with a timeout), as a blocking program's does
  // a few non-blocking looks while messages keep coming, then a blocking receive: saves the
  // kernel's wake-up per message in full flow, so it is faster than a blocking program
  poll_then_block,
  yield, // non-blocking receive, giving the core away (sched_yield) when nothing came
  spin   // non-blocking receive in a loop: shows the transport's real latency
};

// Whether a strategy's receives sleep in the kernel when nothing has come (block,
// poll-then-block), rather than looking again (yield, spin).
constexpr bool sleeps(WaitStrategy strategy) noexcept
{
  return strategy == WaitStrategy::block || strategy == WaitStrategy::poll_then_block;
}

// How a paced publisher (--send-hz) waits for each message's due time.
enum class PaceMode {
  sleep, // the wait strategy's wait until the due time (blocking: the kernel's wake-up is late)
  spin,  // non-blocking polls until the due time (burns the core between messages)
  hybrid // the wait strategy's wait until shortly before the due time, then polls
};

// What a subscriber sends back for each probe (docs/methodology.md, "Echoes").
// --payload-fill: how often a data message's payload is written into memory a transport lends
// (MessageLender); a transport that does not lend sends one buffer the core filled once.
enum class PayloadFill {
  once,         // as iceperf: a lent buffer gets the payload the first time it is lent, then only
                // the header is rewritten (the buffer holds the payload from its earlier use)
  every_message // the whole payload is written into every loan: the run measures that copy too
};

// --fanout: whom each data message goes to.
enum class Fanout {
  all,        // every subscriber gets every message (pub/sub)
  round_robin // each message goes to one subscriber in turn (RMR's round-robin, NNG's push0)
};

enum class EchoSize {
  record, // the header and the subscriber's two stamps (68 B): the smallest round trip
  full    // as many bytes as the probe (sockperf, ddsperf, iceperf): same size both ways
};

// How the report on stdout is laid out; --json is the same either way.
enum class ReportFormat {
  netprof, // netprof's own report (docs/reading-the-report.md)
  madara   // MADARA network_profiler's layout, for the scripts that parse it
};

// Which local pair a role runs in, for its report: none (started on its own), the two
// processes of --local-pair, or the two threads of one process of --local-pair --threads.
enum class PairLayout { none, processes, threads };

struct RunConfig {
  Role role = Role::publisher;
  std::uint32_t id = 0;
  std::string transport_name; // registry name of the selected transport

  std::size_t payload_size = 128;       // -s
  std::size_t queue_length = 1'000'000; // -q, bytes
  double test_seconds = 10.0;           // -t
  std::optional<std::uint64_t> count;   // --count: measured messages instead of a time
  // --count-received: the measured phase ends once every subscriber has this many measured
  // round trips (ping-pong), or at -t, whichever comes first.
  std::optional<std::uint64_t> count_received;
  double send_hz = 0.0;             // --send-hz; 0 = as fast as possible
  PaceMode pace = PaceMode::hybrid; // --pace: how the paced publisher waits for a due time
  std::uint32_t num_vars = 0;       // --num-vars; 0 = one opaque payload

  std::uint32_t subscribers = 1; // --subscribers: publisher waits for this many
  // --publishers: ids 0 to publishers - 1 publish, each its own stream (its addresses moved
  // by its id: OptionSpec::per_stream); the others subscribe to every one of them.
  std::uint32_t publishers = 1;
  // --lead HOST:PORT: where publisher 0 takes the other publishers' reports (run by hand);
  // empty: an abstract Unix socket on this host named after the run's first stream.
  std::string lead;
  // --topics: each publisher sends this many independent streams, each on addresses of its
  // own (stream_index) and a thread of its own, each measured apart.
  std::uint32_t topics = 1;
  double wait_seconds = 10.0;                // --wait: how long either side waits for its peer
  double warmup_seconds = 0.5;               // --warmup-time
  std::optional<std::uint64_t> warmup_count; // --warmup-count (replaces the time)

  Mode mode = Mode::stream;           // --mode
  double probe_hz = 1000.0;           // --probe-hz: probes per second in stream mode
  double probe_timeout_seconds = 1.0; // --probe-timeout: an echo later than this is lost
  double idle_timeout_seconds = 3.0;  // --idle-timeout: subscriber gives up on a silent publisher
  EchoSize echo = EchoSize::record;   // --echo
  PayloadFill payload_fill = PayloadFill::once;  // --payload-fill
  PayloadType payload_type = PayloadType::bytes; // --payload-type
  Fanout fanout = Fanout::all;                   // --fanout

  QosRequest qos{}; // --reliability, --history

  WaitStrategy wait_strategy = WaitStrategy::block; // --wait-strategy
  std::vector<int> cpus;   // --cpu: pin this process (local pair: publisher,subscriber)
  std::optional<int> nice; // --nice: the scheduler's niceness, -20 to 19
  std::optional<std::uint32_t> rt_priority; // --rt-priority: SCHED_FIFO at this priority

  // --drop-rate: a subscriber drops this share of the data it receives before counting it,
  // chosen by a generator seeded with --drop-seed, so a run's loss has a known truth.
  double drop_percent = 0.0;
  std::uint64_t drop_seed = 1;

  // --interval: a line of figures every this many seconds of the measured phase, and
  // intervals[] in the JSON; none without it.
  std::optional<double> interval_seconds;

  std::optional<double> max_loss_percent; // --max-loss: FAIL when a subscriber loses more
  std::string json_path;                  // --json; "-": standard output
  bool quiet = false;                     // --quiet: no report on stdout, no status line
  bool print_histogram = false;           // --histogram: latency distribution as text bars
  bool local_pair = false;                // --local-pair
  bool threads = false;                   // --threads: the local pair as threads of one process
  // Not an option: the local pair this role runs in, set by whoever started it.
  PairLayout pair_layout = PairLayout::none;
  // --format: the layout of the report on stdout.
  ReportFormat report_format = ReportFormat::netprof;

  // --key-file: the file, and the shared secret it holds (read and checked while parsing), which
  // authenticates every control message; empty: none.
  std::string key_file;
  std::vector<std::byte> shared_secret;

  std::vector<std::string> command_line;  // argv as given, for the report
  std::vector<std::string> options_given; // long names of the options on it, in order
};

// `--json -`: the JSON report is the process's standard output, so the text report and the
// --interval lines go to standard error instead, where a user still sees them and a pipe
// (netprof --json - | jq) gets JSON alone.
// The stream of `publisher`'s topic `topic` under --publishers and --topics: what its
// addresses are moved by (OptionSpec::per_stream). Publisher 0's topic 0 is as given.
inline std::uint32_t stream_index(const RunConfig& config, std::uint32_t publisher,
                                  std::uint32_t topic) noexcept
{
  return publisher * config.topics + topic;
}

inline bool json_on_stdout(const RunConfig& config) noexcept
{
  return config.json_path == "-";
}

inline const char* to_string(Mode mode) noexcept
{
  return mode == Mode::stream ? "stream" : "ping-pong";
}

inline const char* to_string(WaitStrategy strategy) noexcept
{
  switch (strategy) {
  case WaitStrategy::block:
    return "block";
  case WaitStrategy::poll_then_block:
    return "poll-then-block";
  case WaitStrategy::yield:
    return "yield";
  case WaitStrategy::spin:
    break;
  }
  return "spin";
}

inline const char* to_string(PaceMode pace) noexcept
{
  switch (pace) {
  case PaceMode::sleep:
    return "sleep";
  case PaceMode::spin:
    return "spin";
  case PaceMode::hybrid:
    break;
  }
  return "hybrid";
}

inline const char* to_string(PayloadFill fill) noexcept
{
  return fill == PayloadFill::once ? "once" : "every-message";
}

inline const char* to_string(Fanout fanout) noexcept
{
  return fanout == Fanout::all ? "all" : "round-robin";
}

inline const char* to_string(EchoSize echo) noexcept
{
  return echo == EchoSize::record ? "record" : "full";
}

inline const char* to_string(ReportFormat format) noexcept
{
  return format == ReportFormat::netprof ? "netprof" : "madara";
}

// "threads", "processes"; "none" for a role started on its own.
inline const char* to_string(PairLayout layout) noexcept
{
  switch (layout) {
  case PairLayout::processes:
    return "processes";
  case PairLayout::threads:
    return "threads";
  case PairLayout::none:
    break;
  }
  return "none";
}

inline const char* to_string(Role role) noexcept
{
  return role == Role::publisher ? "publisher" : "subscriber";
}

} // namespace netprof
