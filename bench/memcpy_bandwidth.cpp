// Single-core memcpy bandwidth for blocks of one size (1 MiB by default): the yardstick for
// netprof --shm streaming large messages, which must copy each one into the ring at least once.
// No netprof code. transports/shm/bench/bench_shm.sh compares netprof's payload B/s with this.
//
//   memcpy_bandwidth [--block BYTES] [--span BYTES] [--seconds S] [--cpu N]
//
// `hot_bytes_per_second`: the same source and destination block over and over, both in this
// core's caches when they fit (the best a copy can do). `span_bytes_per_second`: the
// destination walks through --span bytes (default 64 blocks) block by block, as a transport's
// writes walk through its ring: with a span the size of netprof's ring this is the same copy
// netprof --shm makes per message. Prints one JSON line. Exit status: 0, 1 runtime error, 2 bad
// command line.

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t block = 1 << 20;
  std::size_t span = 0; // 0: 64 blocks
  double seconds = 1.0;
  int cpu = -1;
};

bool parse(std::string_view text, std::size_t& out)
{
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc{} && end == text.data() + text.size();
}

// Copies `block` bytes from `source` to destinations taken in turn from `destinations`
// for about `seconds`; returns bytes per second.
double measure(const std::byte* source, std::byte* destinations, std::size_t count,
               std::size_t block, double seconds)
{
  // A first pass untimed: page faults and cold caches are not what this measures.
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(destinations + i * block, source, block);
  std::uint64_t copies = 0;
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  auto now = start;
  do {
    for (int repeat = 0; repeat < 16; ++repeat) {
      std::memcpy(destinations + (copies % count) * block, source, block);
      ++copies;
    }
    // Keeps the compiler from treating the copies as dead.
    asm volatile("" : : "r"(destinations) : "memory");
    now = Clock::now();
  } while (now < until);
  const double elapsed = std::chrono::duration<double>(now - start).count();
  return static_cast<double>(copies) * static_cast<double>(block) / elapsed;
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "memcpy_bandwidth: every option takes a value\n");
      return 2;
    }
    const std::string_view value = argv[++i];
    std::size_t number = 0;
    if (flag == "--block" && parse(value, number) && number > 0) {
      options.block = number;
    } else if (flag == "--span" && parse(value, number) && number > 0) {
      options.span = number;
    } else if (flag == "--seconds" && parse(value, number) && number > 0) {
      options.seconds = static_cast<double>(number);
    } else if (flag == "--cpu" && parse(value, number) && number < CPU_SETSIZE) {
      options.cpu = static_cast<int>(number);
    } else {
      std::fprintf(stderr,
                   "memcpy_bandwidth: bad option %s %s (expected --block BYTES, "
                   "--span BYTES, --seconds S, --cpu N)\n",
                   argv[i - 1], argv[i]);
      return 2;
    }
  }
  if (options.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(options.cpu), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "memcpy_bandwidth: cannot pin to CPU %d\n", options.cpu);
      return 1;
    }
  }
  const std::size_t blocks =
      options.span == 0 ? 64 : std::max<std::size_t>(1, options.span / options.block);
  std::vector<std::byte> source(options.block, std::byte{0x5a});
  std::vector<std::byte> destinations(options.block * blocks);
  const double hot = measure(source.data(), destinations.data(), 1, options.block, options.seconds);
  const double spread =
      measure(source.data(), destinations.data(), blocks, options.block, options.seconds);
  std::printf("{\"block_bytes\": %zu, \"span_bytes\": %zu, \"hot_bytes_per_second\": %.0f, "
              "\"span_bytes_per_second\": %.0f}\n",
              options.block, options.block * blocks, hot, spread);
  return 0;
}
