// The physical floor for shared-memory latency: two threads, pinned to two cores, pass one
// cache line back and forth through a single atomic word, with no netprof code. One round
// trip is two transfers of the line between the cores; one-way = RTT / 2, as netprof reports.
// scripts/bench_shm.sh compares netprof --shm ping-pong with this.
//
// With --lines 2 the answer comes back in a second line, as it must through any transport
// with a channel each way (netprof's data ring one way, a back ring the other): each side then
// writes a line the other holds, instead of the line it has just read.
//
// With --walk N each message goes to the next of N lines one way (and the answer to the next of
// N others), as a ring's records walk through its memory: what the hardware charges any ring
// for writing each message to a line other than the last one. On the AMD EPYC VMs we measure
// on, a walk of 16 lines or more costs 20 ns more one-way than --lines 2 when the vCPUs sit
// close, with nothing but one store and one poll per message.
//
//   cache_line_pingpong [--iterations N] [--warmup N] [--cpu PINGER,PONGER] [--lines 1|2]
//                       [--walk LINES]
//
// Each round trip is stamped with steady_clock on the pinger, like netprof's probes, so the
// clock's own cost is in both figures; `batch_one_way_ns` (one stamp per whole run) shows what
// the clock adds. Prints one JSON line, with the one-way mean beside the p50. Exit status:
// 0 measured, 1 runtime error, 2 bad command line.

#include "bare_common.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::uint64_t iterations = 1'000'000;
  std::uint64_t warmup = 100'000;
  std::optional<int> pinger_cpu = 0;
  std::optional<int> ponger_cpu = 1;
  bool two_lines = false;
  std::uint64_t walk = 0; // lines each way, a power of two; 0: no walk
};

struct UsageError {
  const char* message;
};

std::uint64_t parse_count(std::string_view text, const char* message)
{
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value == 0)
    throw UsageError{message};
  return value;
}

int parse_cpu(std::string_view text)
{
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 0 || value >= CPU_SETSIZE)
    throw UsageError{"--cpu needs two CPU numbers: PINGER,PONGER"};
  return value;
}

Options parse_options(int argc, char** argv)
{
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc)
      throw UsageError{"every option takes a value"};
    const std::string_view value = argv[++i];
    if (flag == "--iterations") {
      options.iterations = parse_count(value, "--iterations needs a whole number >= 1");
    } else if (flag == "--warmup") {
      options.warmup = parse_count(value, "--warmup needs a whole number >= 1");
    } else if (flag == "--cpu") {
      const std::size_t comma = value.find(',');
      if (comma == std::string_view::npos)
        throw UsageError{"--cpu needs PINGER,PONGER"};
      options.pinger_cpu = parse_cpu(value.substr(0, comma));
      options.ponger_cpu = parse_cpu(value.substr(comma + 1));
    } else if (flag == "--lines") {
      if (value != "1" && value != "2")
        throw UsageError{"--lines needs 1 or 2"};
      options.two_lines = value == "2";
    } else if (flag == "--walk") {
      options.walk = parse_count(value, "--walk needs a power of two >= 1");
      if (!std::has_single_bit(options.walk) || options.walk > (std::uint64_t{1} << 20))
        throw UsageError{"--walk needs a power of two, at most 1048576"};
    } else {
      throw UsageError{"unknown option (expected --iterations, --warmup, --cpu, --lines or --walk)"};
    }
  }
  return options;
}

bool pin(std::optional<int> cpu)
{
  if (!cpu)
    return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<unsigned>(*cpu), &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
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

// Where message i goes, one way. The floor's lane is one fixed line, so its loops hold no index
// arithmetic at all; a walking lane has its lines 64 B apart, as a ring's records.
struct FixedLane {
  Line* line;
  std::atomic<std::uint64_t>& at(std::uint64_t) const noexcept { return line->value; }
};
struct alignas(64) Slot {
  std::atomic<std::uint64_t> value{0};
};
struct WalkingLane {
  Slot* slots;
  std::uint64_t mask;
  std::atomic<std::uint64_t>& at(std::uint64_t i) const noexcept { return slots[i & mask].value; }
};

struct Measured {
  std::vector<std::int64_t> rtt;
  Clock::duration measured; // first to last measured round trip, one stamp each end
};

// Pings `forward`, waits for the answer on `backward`. nullopt (said on stderr) if a thread
// could not be pinned.
template <typename Lane>
std::optional<Measured> ping_pong(const Options& options, Lane forward, Lane backward)
{
  const std::uint64_t total = options.warmup + options.iterations;
  std::atomic<bool> ponger_pinned{true};

  // The ponger answers every odd value with the next even one. It captures by value: reading
  // the pinger's locals through a reference would put their cache line in the measurement.
  std::thread ponger([forward, backward, &ponger_pinned, total, cpu = options.ponger_cpu] {
    if (!pin(cpu))
      ponger_pinned = false;
    for (std::uint64_t i = 0; i < total; ++i) {
      const std::uint64_t ping = 2 * i + 1;
      while (forward.at(i).load(std::memory_order_acquire) != ping)
        bare::relax();
      backward.at(i).store(ping + 1, std::memory_order_release);
    }
  });
  if (!pin(options.pinger_cpu)) {
    std::fprintf(stderr, "cache_line_pingpong: cannot pin to CPU %d\n", *options.pinger_cpu);
    forward.at(0).store(~std::uint64_t{0}); // the ponger cannot finish; nothing sensible to do
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
    forward.at(i).store(ping, std::memory_order_release);
    while (backward.at(i).load(std::memory_order_acquire) != ping + 1)
      bare::relax();
    const auto end = Clock::now();
    if (i >= options.warmup)
      result.rtt[i - options.warmup] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  }
  result.measured = Clock::now() - measured_start;
  ponger.join();
  if (!ponger_pinned) {
    std::fprintf(stderr, "cache_line_pingpong: cannot pin to CPU %d\n", *options.ponger_cpu);
    return std::nullopt;
  }
  return result;
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "cache_line_pingpong: %s\n", error.message);
    return 2;
  }
  std::optional<Measured> measured;
  std::vector<Slot> walk_lines(2 * options.walk);
  if (options.walk > 0)
    measured = ping_pong(options, WalkingLane{walk_lines.data(), options.walk - 1},
                         WalkingLane{walk_lines.data() + options.walk, options.walk - 1});
  else
    measured = ping_pong(options, FixedLane{&g_line},
                         FixedLane{options.two_lines ? &g_answer_line : &g_line});
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
  // Nearest rank, as netprof's percentiles.
  const auto percentile = [&](double p) {
    const auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(rtt.size()) + 0.999999);
    return rtt[std::min(rtt.size(), std::max<std::size_t>(rank, 1)) - 1];
  };
  const double batch_one_way =
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(measured->measured).count()) /
      static_cast<double>(options.iterations) / 2.0;
  std::printf("{\"iterations\": %llu, \"lines\": %d, \"walk\": %llu, \"rtt_min_ns\": %lld, \"rtt_p50_ns\": %lld, "
              "\"rtt_p99_ns\": %lld, \"one_way_p50_ns\": %.1f, \"one_way_mean_ns\": %.1f, "
              "\"batch_one_way_ns\": %.1f}\n",
              static_cast<unsigned long long>(options.iterations),
              options.walk > 0 || options.two_lines ? 2 : 1,
              static_cast<unsigned long long>(options.walk),
              static_cast<long long>(rtt.front()), static_cast<long long>(percentile(50)),
              static_cast<long long>(percentile(99)), static_cast<double>(percentile(50)) / 2.0,
              one_way_mean, batch_one_way);
  return 0;
}
