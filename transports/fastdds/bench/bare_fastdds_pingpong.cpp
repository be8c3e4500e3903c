// The floor netprof's Fast DDS ping-pong is compared against: the leanest honest round trip
// between two processes with Fast DDS alone, no netprof code, on the same loopback participant,
// type wire form and QoS as netprof --fastdds (bare_fastdds_common.hpp). The pinger writes a
// sample of --size bytes (its sequence number in the first 8) on TOPIC_ping; the ponger answers
// each with --echo-size bytes on TOPIC_pong. --notify says how each side hears of a sample, as
// --fastdds-notify does for netprof: waitset (the process's own thread sleeps in a WaitSet on a
// ReadCondition and takes it) or listener (Fast DDS's receive thread takes it in
// on_data_available; the ponger answers there; the pinger's listener stamps the echo and, once
// the warm-up is over, writes the next ping itself, as ddsperf's ping and netprof's relayed
// probes do; in the warm-up it wakes the pinger's thread through a GuardCondition).
//
//   bare_fastdds_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                         [--notify listener|waitset] [--domain ID] [--cpu PINGER,PONGER]
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (no peer, timeout),
// 2 bad command line.

#include "bare_fastdds_side.hpp"
#include "bare_pingpong.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace dds = eprosima::fastdds::dds;
using bare::parse_number;
using bare::UsageError;
using bare_fastdds::Bytes;
using bare_fastdds::Side;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_fastdds_pingpong";
constexpr const char* usage =
    "usage: bare_fastdds_pingpong [--size BYTES (=116)] [--echo-size BYTES (=68)]\n"
    "       [--iterations N (=20000)] [--warmup N (=2000)] [--notify listener|waitset (=waitset)]\n"
    "       [--domain ID (=78)] [--cpu PINGER,PONGER (none: unpinned)]\n";
constexpr std::uint64_t stop_sequence = ~std::uint64_t{0};
constexpr auto give_up_after = std::chrono::seconds(20);
// A warm-up ping unanswered this long is sent again: the ponger's writer may match the
// pinger's reader a moment after the pinger saw its own matches.
constexpr auto resend_after = std::chrono::milliseconds(100);

struct Options : bare::SizedRoundTrips {
  bool listener = false;
  std::uint32_t domain = 78;
};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--notify" && (value == "listener" || value == "waitset"))
    options.listener = value == "listener";
  else if (flag == "--notify")
    throw UsageError{"--notify takes listener or waitset"};
  else if (flag == "--domain")
    options.domain = parse_number<std::uint32_t>(value, 0, 232, "--domain must be 0 to 232");
  else
    return bare::take_sized_round_trip_option(flag, value, options);
  return true;
}

bare_fastdds::SideSettings side_settings(const Options& options)
{
  return {options.domain, options.listener, false};
}

std::uint64_t sequence_of(const std::vector<std::uint8_t>& bytes)
{
  std::uint64_t sequence = 0;
  std::memcpy(&sequence, bytes.data(), std::min(bytes.size(), sizeof sequence));
  return sequence;
}

// The child: answers each ping with an echo carrying its sequence number, until the stop ping.
void run_ponger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  std::vector<std::uint8_t> echo(options.echo_size, 0x5a);
  std::atomic<bool> stopped{false};
  Side* self = nullptr;
  Side side(side_settings(options), topic + "_pong", topic + "_ping", [&](const Bytes& ping) {
    const std::uint64_t sequence = sequence_of(ping.in);
    if (sequence == stop_sequence) {
      stopped.store(true);
      return;
    }
    std::memcpy(echo.data(), &sequence, sizeof sequence);
    self->write(echo);
  });
  self = &side;
  const auto give_up = Clock::now() + give_up_after + std::chrono::seconds(30);
  while (!stopped.load() && Clock::now() < give_up)
    side.wait(std::chrono::milliseconds(100));
  if (!stopped.load())
    throw Failure{"no stop from the pinger"};
}

// Pings once and waits for its echo; false when none came within `timeout`.
bool round_trip(Side& side, std::vector<std::uint8_t>& ping, std::uint64_t sequence,
                const std::atomic<std::uint64_t>& echoed, std::chrono::nanoseconds timeout)
{
  std::memcpy(ping.data(), &sequence, sizeof sequence);
  side.write(ping);
  const auto until = Clock::now() + timeout;
  while (echoed.load(std::memory_order_acquire) != sequence) {
    const auto now = Clock::now();
    if (now >= until)
      return false;
    side.wait(until - now);
  }
  return true;
}

// --notify listener, the measured pings: the listener that takes an echo stamps it and writes
// the next ping itself; the pinger's thread only sends the first and waits for the last.
struct ListenerPings {
  std::atomic<bool> on{false};
  std::atomic<bool> done{false};
  std::atomic<Clock::rep> sent_at{0};
  std::atomic<std::uint64_t> awaited{stop_sequence}; // the sequence of the ping out
  std::uint64_t last = 0;                            // the last sequence to send
  std::vector<std::uint8_t>* ping = nullptr;
  std::vector<std::int64_t>* rtts = nullptr;

  // On the listener: false when the echo is not one of the measured pings'. A late echo of a
  // warm-up ping sent twice is dropped.
  bool on_echo(Side& side, std::uint64_t sequence, Clock::time_point now)
  {
    if (!on.load(std::memory_order_acquire))
      return false;
    if (sequence != awaited.load(std::memory_order_relaxed))
      return true;
    rtts->push_back(now.time_since_epoch().count() - sent_at.load(std::memory_order_relaxed));
    if (sequence >= last) {
      done.store(true, std::memory_order_release);
      side.wake();
      return true;
    }
    send(side, sequence + 1);
    return true;
  }

  void send(Side& side, std::uint64_t sequence)
  {
    std::memcpy(ping->data(), &sequence, sizeof sequence);
    awaited.store(sequence, std::memory_order_relaxed);
    sent_at.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    side.write(*ping);
  }
};

std::vector<std::int64_t> run_pinger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  std::atomic<std::uint64_t> echoed{stop_sequence};
  Clock::time_point echoed_at;
  ListenerPings measured;
  Side* self = nullptr;
  Side side(side_settings(options), topic + "_ping", topic + "_pong", [&](const Bytes& echo) {
    const auto now = Clock::now();
    const std::uint64_t sequence = sequence_of(echo.in);
    if (measured.on_echo(*self, sequence, now))
      return;
    echoed_at = now;
    echoed.store(sequence, std::memory_order_release);
    if (options.listener)
      self->wake();
  });
  self = &side;
  const auto give_up = Clock::now() + give_up_after;
  while (!side.matched())
    if (Clock::now() > give_up)
      throw Failure{"the ponger was never matched"};
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::vector<std::uint8_t> ping(options.size, 0x5a);
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.iterations);
  const std::uint64_t total = options.warmup + options.iterations;
  // Listening, the pinger's thread sends only the warm-up's pings.
  const std::uint64_t own = options.listener ? options.warmup : total;
  for (std::uint64_t sequence = 0; sequence < own; ++sequence) {
    const bool warming = sequence < options.warmup;
    const auto sent_at = Clock::now();
    while (!round_trip(side, ping, sequence, echoed, warming ? resend_after : give_up_after))
      if (!warming || Clock::now() > give_up)
        throw Failure{"no echo for ping " + std::to_string(sequence)};
    if (!warming)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(echoed_at - sent_at).count());
  }
  if (options.listener && options.iterations > 0) {
    measured.last = total - 1;
    measured.ping = &ping;
    measured.rtts = &rtts;
    measured.on.store(true, std::memory_order_release);
    measured.send(side, options.warmup);
    const auto until = Clock::now() + give_up_after;
    while (!measured.done.load(std::memory_order_acquire)) {
      const auto now = Clock::now();
      if (now >= until)
        throw Failure{"the echoes stopped before the last ping"};
      side.wait(until - now);
    }
  }
  std::memcpy(ping.data(), &stop_sequence, sizeof stop_sequence);
  side.write(ping);
  side.finish();
  return rtts;
}

int run(const Options& options)
{
  const std::string topic = "bare_fastdds_" + std::to_string(getpid());
  return bare::run_pingpong(
      program, [&] { run_ponger(options, topic); }, [&] { return run_pinger(options, topic); },
      [&] {
        std::printf("{\"transport\":\"fastdds\",\"notify\":\"%s\",\"size\":%zu,\"echo_size\":%zu,",
                    options.listener ? "listener" : "waitset", options.size, options.echo_size);
      });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, bare::command_line_parser<Options>(take_option),
                        run);
}
