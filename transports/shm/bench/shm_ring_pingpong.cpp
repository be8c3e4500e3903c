// The shared-memory ring alone, with no netprof core: two threads pinned to two cores ping-pong
// records through netprof's own RingWriter/RingReader (transports/shm/ring.hpp), a data ring one
// way and a keep-all back ring the other, as `netprof --shm --mode ping-pong` does, but without
// headers to encode or validate, probes to match or histograms to fill.
// transports/shm/bench/bench_shm.sh prints it between the cache-line floor and netprof, so a run
// shows how much of netprof's latency is the ring's record protocol and how much the core's work
// per message.
//
//   shm_ring_pingpong [--iterations N] [--warmup N] [--cpu PINGER,PONGER] [--size BYTES]
//                     [--echo-size BYTES] [--history keep-last|keep-all] [--capacity BYTES]
//
// --size defaults to 116 (netprof -s 64: 64 B payload + 52 B header), --echo-size to 68 (an
// echo is a header and the subscriber's two 8-byte stamps), --capacity (the data ring's, a
// power of two) to netprof's default of 1 MiB. Both sides pause between empty polls, like netprof's
// spin waits. Each round trip is stamped with steady_clock on the pinger, like the floor and
// netprof. Prints one JSON line. Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_common.hpp"

#include "ring.hpp"

#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;
using namespace netprof::shm;

constexpr std::size_t default_data_capacity = std::size_t{1} << 20; // netprof's default ring
constexpr std::size_t back_capacity = std::size_t{1} << 16;         // netprof's back rings

struct Options : bare::RoundTrips {
  std::size_t size = 116;
  std::size_t echo_size = 68;
  std::size_t capacity = default_data_capacity;
  History history = History::keep_last;
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--capacity") {
    options.capacity = bare::parse_number<std::size_t>(value, min_ring_capacity, max_ring_capacity,
                                                       "--capacity needs 256..2^30");
    if (!std::has_single_bit(options.capacity))
      throw bare::UsageError{"--capacity needs a power of two"};
  } else if (flag == "--history") {
    if (value != "keep-last" && value != "keep-all")
      throw bare::UsageError{"--history needs keep-last or keep-all"};
    options.history = value == "keep-all" ? History::keep_all : History::keep_last;
  } else if (flag == "--size") {
    options.size = bare::parse_number<std::size_t>(value, 1, max_message_size(max_ring_capacity),
                                                   "--size needs 1 or more");
  } else if (flag == "--echo-size") {
    options.echo_size = bare::parse_number<std::size_t>(value, 1, max_message_size(back_capacity),
                                                        "--echo-size needs 1..32760");
  } else {
    return bare::take_round_trip_option(flag, value, options);
  }
  return true;
}

Options parse_options(int argc, char** argv)
{
  Options options = bare::parse_command_line<Options>(argc, argv, take_option);
  // After the walk: --size and --capacity may come in either order.
  if (options.size > max_message_size(options.capacity))
    throw bare::UsageError{"--size does not fit the data ring: at most half of --capacity, less 8"};
  return options;
}

struct FreeDeleter {
  void operator()(std::byte* memory) const noexcept { std::free(memory); }
};
constexpr const char* usage =
    "usage: shm_ring_pingpong [--iterations N] [--warmup N] [--cpu A,B] [--size BYTES]\n"
    "                         [--echo-size BYTES] [--history keep-last|keep-all]\n"
    "                         [--capacity BYTES]\n";

using RingMemory = std::unique_ptr<std::byte, FreeDeleter>;

// Setting up, the threads meet through these; measuring, the ponger reads nothing the pinger
// writes but the rings.
struct Meeting {
  enum Phase { waiting, go, abort };
  std::atomic<bool> ponger_attached{false};
  std::atomic<bool> ponger_pinned{true};
  std::atomic<Phase> phase{waiting};
};

RingMemory allocate_ring(std::size_t capacity)
{
  const std::size_t bytes = RingView::bytes_needed(capacity, 1);
  return RingMemory(static_cast<std::byte*>(std::aligned_alloc(netprof::shm::cache_line, bytes)));
}

// The ponger's thread: attaches to the data ring, says so, waits for the go, then answers each
// of `total` records with an echo on the back ring. Its cursors are its own: a reader object on
// the other thread's stack would share its cache lines with that thread's locals and put false
// sharing in the measurement.
void answer_pings(RingView data_ring, RingView back_ring, const Options& options,
                  std::uint64_t total, Meeting& meeting)
{
  if (!bare::pin_to_cpu(options.cpus.second))
    meeting.ponger_pinned = false;
  std::vector<std::uint64_t> copy((data_ring.max_message_size() + 7) / 8);
  RingReader reader(data_ring, 0, copy);
  reader.attach();
  RingWriter echo_writer(back_ring);
  std::vector<std::byte> echo(options.echo_size);
  meeting.ponger_attached = true;
  while (meeting.phase == Meeting::waiting)
    bare::relax();
  if (meeting.phase == Meeting::abort)
    return;
  std::uint64_t answered = 0;
  const auto answer = [&](std::span<const std::byte> message) {
    std::memcpy(echo.data(), message.data(), std::min(message.size(), echo.size()));
    while (echo_writer.write(echo) != WriteResult::written)
      bare::relax();
    ++answered;
  };
  while (answered < total)
    if (reader.read(answer, 64) == 0)
      bare::relax();
}

// The pinger's side: `total` round trips, the ones after the warm-up timed, in nanoseconds.
std::vector<std::int64_t> time_round_trips(RingView data_ring, RingView back_ring,
                                           const Options& options, std::uint64_t total)
{
  RingWriter writer(data_ring);
  RingReader echo_reader(back_ring, 0, {});
  echo_reader.adopt();
  std::vector<std::byte> message(options.size);
  std::vector<std::int64_t> rtt(options.iterations);
  // The round trip ends as the echo is handed over, as netprof's publisher reads its clock in
  // the sink: read() goes on to look at the next record's header (a load that may miss)
  // before it returns, and that is not the echo's latency.
  bool echoed = false;
  Clock::time_point end{};
  const auto take_echo = [&](std::span<const std::byte>) {
    end = Clock::now();
    echoed = true;
  };
  for (std::uint64_t i = 0; i < total; ++i) {
    const auto start = Clock::now();
    std::memcpy(message.data(), &i, std::min(sizeof i, message.size()));
    writer.write(message);
    echoed = false;
    while (!echoed)
      if (echo_reader.read(take_echo, 64) == 0)
        bare::relax();
    if (i >= options.warmup)
      rtt[i - options.warmup] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  }
  return rtt;
}

// Two threads, pinned, ping-pong through the two rings; 0 when the round trips were printed.
int measure(const Options& options)
{
  const std::size_t data_capacity = options.capacity;
  RingMemory data_memory = allocate_ring(data_capacity);
  RingMemory back_memory = allocate_ring(back_capacity);
  if (!data_memory || !back_memory) {
    std::fprintf(stderr, "shm_ring_pingpong: out of memory\n");
    return 1;
  }
  const auto data_ring = RingView::format(
      std::span<std::byte>(data_memory.get(), RingView::bytes_needed(data_capacity, 1)),
      data_capacity, 1, options.history, 0x5eed5eed5eed5eedull);
  const auto back_ring = RingView::format(
      std::span<std::byte>(back_memory.get(), RingView::bytes_needed(back_capacity, 1)),
      back_capacity, 1, History::keep_all, 0xbacc0bacc0bacc0bull, true);
  if (!data_ring || !back_ring) {
    std::fprintf(stderr, "shm_ring_pingpong: cannot format the rings\n");
    return 1;
  }

  const std::uint64_t total = options.warmup + options.iterations;
  Meeting meeting;
  std::thread ponger([&] { answer_pings(*data_ring, *back_ring, options, total, meeting); });
  while (!meeting.ponger_attached)
    bare::relax();
  if (!meeting.ponger_pinned || !bare::pin_to_cpu(options.cpus.first)) {
    std::fprintf(stderr, "shm_ring_pingpong: cannot pin to CPUs %d,%d\n", options.cpus.first,
                 options.cpus.second);
    meeting.phase = Meeting::abort;
    ponger.join();
    return 1;
  }
  meeting.phase = Meeting::go;
  std::vector<std::int64_t> rtt = time_round_trips(*data_ring, *back_ring, options, total);
  ponger.join();
  bare::print_spaced_round_trips(std::move(rtt), options.size, options.echo_size,
                                 std::string("\"history\": \"") +
                                     netprof::shm::to_string(options.history) + "\", ");
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, "shm_ring_pingpong", usage, parse_options, measure);
}
