// The physical floor for shared-memory latency: two threads, pinned to two cores, pass one
// cache line back and forth through a single atomic word, with no netprof code. One round
// trip is two transfers of the line between the cores; one-way = RTT / 2, as netprof reports.
// transports/shm/bench/bench_shm.sh compares netprof --shm ping-pong with this.
//
// With --lines 2 the answer comes back in a second line, as it must through any transport
// with a channel each way (netprof's data ring one way, a back ring the other): each side then
// writes a line the other holds, instead of the line it has just read.
//
// With --walk N each message goes to the next of N records one way (and the answer to the next
// of N lines the other way, 64 B apart), as a ring's records walk through its memory: what the
// hardware charges any ring for writing each message to a line other than the last one. On the
// AMD EPYC VMs we measure on, a walk of 16 lines or more costs 15-20 ns more one-way than
// --lines 2 when the vCPUs sit close, with nothing but one store and one poll per message.
// --record-lines 2 makes each record of the walk two lines, 128 B apart, as netprof's 64 B
// payload is (116 B with its header): the second line is stored before the polled one and read
// after it, so this is the least any ring pays for that message, with no protocol of its own.
//
//   cache_line_pingpong [--iterations N] [--warmup N] [--cpu PINGER,PONGER] [--lines 1|2]
//                       [--walk RECORDS] [--record-lines 1|2]
//
// Each round trip is stamped with steady_clock on the pinger, like netprof's probes, so the
// clock's own cost is in both figures; `batch_one_way_ns` (one stamp per whole run) shows what
// the clock adds. Prints one JSON line, with the one-way mean beside the p50. Exit status:
// 0 measured, 1 runtime error, 2 bad command line.

#include "bare_common.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options : bare::RoundTrips {
  bool two_lines = false;
  std::uint64_t walk = 0; // records each way, a power of two; 0: no walk
  bool two_line_records = false;
};

constexpr const char* usage =
    "usage: cache_line_pingpong [--iterations N] [--warmup N] [--cpu A,B] [--lines 1|2]\n"
    "                           [--walk RECORDS] [--record-lines 1|2]\n";

// True for "2".
bool parse_one_or_two(std::string_view value, const char* message)
{
  if (value != "1" && value != "2")
    throw bare::UsageError{message};
  return value == "2";
}

Options parse_options(int argc, char** argv)
{
  Options options;
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (bare::take_round_trip_option(flag, value, options))
      return;
    if (flag == "--lines") {
      options.two_lines = parse_one_or_two(value, "--lines needs 1 or 2");
    } else if (flag == "--record-lines") {
      options.two_line_records = parse_one_or_two(value, "--record-lines needs 1 or 2");
    } else if (flag == "--walk") {
      options.walk = bare::parse_number<std::uint64_t>(value, 1, std::uint64_t{1} << 20,
                                                       "--walk needs 1..1048576 records");
      if (!std::has_single_bit(options.walk))
        throw bare::UsageError{"--walk needs a power of two"};
    } else {
      throw bare::UsageError{"unknown option (see --help)"};
    }
  });
  if (options.two_line_records && options.walk == 0)
    throw bare::UsageError{"--record-lines 2 needs --walk"};
  return options;
}

// The one line both threads write: alone on its cache line, and on a 128-byte pair of lines
// (the adjacent-line prefetcher moves pairs), so no other data rides on its traffic. A global,
// not a local: a local's neighbours on main's stack are written by the pinger's loop.
struct alignas(128) Line {
  std::atomic<std::uint64_t> value{0};
};
Line g_line;
Line g_answer_line;
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct alignas(64) Slot {
  std::atomic<std::uint64_t> value{0};
};

// Where message i goes, one way: send() publishes it, receive() waits for it and reads it all.
// The floor's lane is one fixed line, so its loops hold no index arithmetic at all.
struct FixedLane {
  Line* line;
  void send(std::uint64_t, std::uint64_t value) const noexcept
  {
    line->value.store(value, std::memory_order_release);
  }
  void receive(std::uint64_t, std::uint64_t value) const noexcept
  {
    while (line->value.load(std::memory_order_acquire) != value)
      bare::relax();
  }
};

// Records of `lines_per_record` lines, 64 B apart each, as a ring's. The polled line goes last;
// a record's other line is stored first and read once the polled one has come.
template <std::uint64_t lines_per_record> struct WalkingLane {
  static_assert(lines_per_record == 1 || lines_per_record == 2);
  Slot* slots;
  std::uint64_t mask; // records - 1
  Slot* record(std::uint64_t i) const noexcept { return slots + lines_per_record * (i & mask); }
  void send(std::uint64_t i, std::uint64_t value) const noexcept
  {
    Slot* const first = record(i);
    if constexpr (lines_per_record == 2)
      first[1].value.store(value, std::memory_order_relaxed);
    first->value.store(value, std::memory_order_release);
  }
  void receive(std::uint64_t i, std::uint64_t value) const noexcept
  {
    Slot* const first = record(i);
    while (first->value.load(std::memory_order_acquire) != value)
      bare::relax();
    if constexpr (lines_per_record == 2)
      (void)first[1].value.load(std::memory_order_relaxed); // an atomic load is never elided
  }
};

struct Measured {
  std::vector<std::int64_t> rtt;
  Clock::duration measured; // first to last measured round trip, one stamp each end
};

// Pings `forward`, waits for the answer on `backward`. nullopt (said on stderr) if a thread
// could not be pinned.
template <typename Forward, typename Backward>
std::optional<Measured> ping_pong(const Options& options, Forward forward, Backward backward)
{
  const std::uint64_t total = options.warmup + options.iterations;
  std::atomic<bool> ponger_pinned{true};

  // The ponger answers every odd value with the next even one. It captures by value: reading
  // the pinger's locals through a reference would put their cache line in the measurement.
  std::thread ponger([forward, backward, &ponger_pinned, total, cpu = options.cpus.second] {
    if (!bare::pin_to_cpu(cpu))
      ponger_pinned = false;
    for (std::uint64_t i = 0; i < total; ++i) {
      const std::uint64_t ping = 2 * i + 1;
      forward.receive(i, ping);
      backward.send(i, ping + 1);
    }
  });
  if (!bare::pin_to_cpu(options.cpus.first)) {
    std::fprintf(stderr, "cache_line_pingpong: cannot pin to CPU %d\n", options.cpus.first);
    forward.send(0, ~std::uint64_t{0}); // the ponger cannot finish; nothing sensible to do
    ponger.detach();
    return std::nullopt;
  }

  Measured result{std::vector<std::int64_t>(options.iterations), {}};
  Clock::time_point measured_start{};
  for (std::uint64_t i = 0; i < total; ++i) {
    if (i == options.warmup)
      measured_start = Clock::now();
    const auto start = Clock::now();
    const std::uint64_t ping = 2 * i + 1;
    forward.send(i, ping);
    backward.receive(i, ping + 1);
    const auto end = Clock::now();
    if (i >= options.warmup)
      result.rtt[i - options.warmup] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  }
  result.measured = Clock::now() - measured_start;
  ponger.join();
  if (!ponger_pinned) {
    std::fprintf(stderr, "cache_line_pingpong: cannot pin to CPU %d\n", options.cpus.second);
    return std::nullopt;
  }
  return result;
}

std::optional<Measured> run(const Options& options)
{
  if (options.walk == 0)
    return ping_pong(options, FixedLane{&g_line},
                     FixedLane{options.two_lines ? &g_answer_line : &g_line});
  const std::uint64_t forward_lines = (options.two_line_records ? 2 : 1) * options.walk;
  std::vector<Slot> walk_lines(forward_lines + options.walk);
  const WalkingLane<1> backward{walk_lines.data() + forward_lines, options.walk - 1};
  if (options.two_line_records)
    return ping_pong(options, WalkingLane<2>{walk_lines.data(), options.walk - 1}, backward);
  return ping_pong(options, WalkingLane<1>{walk_lines.data(), options.walk - 1}, backward);
}

// Runs the ping-pong and prints its figures; 0 when it measured.
int measure_and_print(const Options& options)
{
  std::optional<Measured> measured = run(options);
  if (!measured)
    return 1;
  std::vector<std::int64_t>& rtt = measured->rtt;

  // The mean beside the median: the clock moves in steps (10 ns on the VMs we use), so a p50
  // jumps a whole step when the mass of the samples shifts a little; the mean does not.
  double rtt_sum = 0;
  for (const std::int64_t sample : rtt)
    rtt_sum += static_cast<double>(sample);
  const double one_way_mean = rtt_sum / static_cast<double>(rtt.size()) / 2.0;
  std::sort(rtt.begin(), rtt.end());
  const double batch_one_way =
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(measured->measured).count()) /
      static_cast<double>(options.iterations) / 2.0;
  std::printf("{\"iterations\": %llu, \"lines\": %d, \"walk\": %llu, \"record_lines\": %d, "
              "\"rtt_min_ns\": %lld, \"rtt_p50_ns\": %lld, \"rtt_p99_ns\": %lld, "
              "\"one_way_p50_ns\": %.1f, \"one_way_mean_ns\": %.1f, \"batch_one_way_ns\": %.1f}\n",
              static_cast<unsigned long long>(options.iterations),
              options.walk > 0 || options.two_lines ? 2 : 1,
              static_cast<unsigned long long>(options.walk), options.two_line_records ? 2 : 1,
              static_cast<long long>(rtt.front()),
              static_cast<long long>(bare::percentile(rtt, 500)),
              static_cast<long long>(bare::percentile(rtt, 990)),
              static_cast<double>(bare::percentile(rtt, 500)) / 2.0, one_way_mean, batch_one_way);
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, "cache_line_pingpong", usage, parse_options, measure_and_print);
}
