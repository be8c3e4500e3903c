// The floor netprof's NNG ping-pong is compared against: the leanest honest round trip over
// NNG between two processes, one pair0 socket each (listening pinger, dialling ponger), blocking
// nng_send/nng_recv (or, with --wait spin, nng_recv polled with NNG_FLAG_NONBLOCK and a
// sched_yield between looks, as netprof's --wait-strategy spin does over NNG), no netprof code.
// With --size 116 --echo-size 68 the bytes are netprof's for
// `-s 64` (its 52-byte header + 64 B out, an echo of its header and the 16 B of cross-clock stamps
// back), so the ratio printed by transports/nng/bench/bench_nng.sh is netprof's own cost.
//
//   bare_nng_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                     [--transport tcp|ipc] [--wait block|spin] [--cpu PINGER,PONGER]
//
// NNG starts threads, so nothing of it is touched before the fork: each process opens its own
// socket. Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (NNG error,
// timeout, lost or corrupt echo), 2 bad command line.

#include "bare_nng_common.hpp"
#include "bare_pingpong.hpp"

#include <nng/nng.h>
#include <nng/protocol/pair0/pair.h>

#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <string>

namespace {

using namespace bare;
using namespace bare::nng;

constexpr const char* program = "bare_nng_pingpong";
constexpr const char* usage =
    "usage: bare_nng_pingpong [--size BYTES (=116)] [--echo-size BYTES (=68)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--transport tcp|ipc (=tcp)]\n"
    "       [--wait block|spin (=block)] [--cpu PINGER,PONGER (none: unpinned)]\n";

struct Options : bare::SizedRoundTrips {
  bool ipc = false;
  bool spin = false;

  Options() // the usage's counts, not the broker ping-pongs'
  {
    iterations = 100000;
    warmup = 10000;
  }
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--wait" && (value == "block" || value == "spin"))
    options.spin = value == "spin";
  else if (flag == "--wait")
    throw UsageError{"--wait takes block or spin"};
  else
    return bare::take_sized_round_trip_option(flag, value, options) ||
           bare::take_transport_option(flag, value, options.ipc);
  return true;
}

// One message into `buffer` (its size in, the message's out): waiting in NNG, or spinning.
// NNG's own threads do the I/O either way, so a spinner gives its CPU away between looks.
void receive(nng_socket socket, std::vector<std::byte>& buffer, std::size_t& size, bool spin,
             const char* what)
{
  if (!spin) {
    size = buffer.size();
    check(nng_recv(socket, buffer.data(), &size, 0), what);
    return;
  }
  for (;;) {
    size = buffer.size();
    const int got = nng_recv(socket, buffer.data(), &size, NNG_FLAG_NONBLOCK);
    if (got != NNG_EAGAIN) {
      check(got, what);
      return;
    }
    sched_yield();
  }
}

// The child: dials (NNG retries until the pinger listens), says hello, answers exactly `total`
// pings with an echo carrying the ping's sequence number.
void run_ponger(const std::string& url, const Options& options)
{
  bare::pin_or_throw(bare::second_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_pair0_open, max_message_size + 64);
  dial(socket, url);
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  check(nng_send(socket, echo.data(), echo.size(), 0), "hello");
  std::vector<std::byte> ping(options.size);
  for (std::uint64_t i = 0; i < options.warmup + options.iterations; ++i) {
    std::size_t size = 0;
    receive(socket, ping, size, options.spin, "receive a ping");
    std::memcpy(echo.data(), ping.data(), sizeof(std::uint64_t)); // the sequence number
    check(nng_send(socket, echo.data(), echo.size(), 0), "send an echo");
  }
  nng_close(socket);
}

// The parent: listens, waits for the hello, then sends a ping, waits for its echo, and keeps
// each measured round trip.
std::vector<std::int64_t> run_pinger(const std::string& url, const Options& options)
{
  bare::pin_or_throw(bare::first_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_pair0_open, max_message_size + 64);
  check(nng_listen(socket, url.c_str(), nullptr, 0), "nng_listen");
  std::vector<std::byte> echo(options.echo_size);
  std::size_t size = echo.size();
  check(nng_recv(socket, echo.data(), &size, 0), "wait for the hello");

  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  auto rtts = time_round_trips(options, ping, [&] {
    check(nng_send(socket, ping.data(), ping.size(), 0), "send a ping");
    receive(socket, echo, size, options.spin, "receive an echo");
    const auto received_at = Clock::now();
    return Echo{received_at, size, sequence_in(echo.data())};
  });
  nng_close(socket);
  return rtts;
}

int run(const Options& options)
{
  return bare::run_two_processes_over_loopback(
      {program, "pinger", "ponger", std::chrono::seconds(10)}, options.ipc,
      [&](const std::string& url) { run_ponger(url, options); },
      [&](const std::string& url) { return run_pinger(url, options); },
      [&](std::vector<std::int64_t> rtts) {
        std::printf("{\"pattern\":\"pair0\",\"transport\":\"%s\",\"wait\":\"%s\","
                    "\"size\":%zu,\"echo_size\":%zu,",
                    options.ipc ? "ipc" : "tcp", options.spin ? "spin" : "block", options.size,
                    options.echo_size);
        bare::print_round_trips(std::move(rtts));
      });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, bare::command_line_parser<Options>(take_option),
                        run);
}
