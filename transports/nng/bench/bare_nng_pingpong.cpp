// The floor netprof's NNG ping-pong is compared against: the leanest honest round trip over
// NNG between two processes, one pair0 socket each (listening pinger, dialling ponger), blocking
// nng_send/nng_recv, no netprof code. With --size 116 --echo-size 68 the bytes are netprof's for
// `-s 64` (its 52-byte header + 64 B out, an echo of its header and the 16 B of cross-clock stamps
// back), so the ratio printed by transports/nng/bench/bench_nng.sh is netprof's own cost.
//
//   bare_nng_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                     [--transport tcp|ipc] [--cpu PINGER,PONGER]
//
// NNG starts threads, so nothing of it is touched before the fork: each process opens its own
// socket. Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (NNG error,
// timeout, lost or corrupt echo), 2 bad command line.

#include "bare_nng_common.hpp"

#include <nng/nng.h>
#include <nng/protocol/pair0/pair.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace bare;
using namespace bare::nng;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_nng_pingpong";
constexpr const char* usage =
    "usage: bare_nng_pingpong [--size BYTES (=116)] [--echo-size BYTES (=68)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--transport tcp|ipc (=tcp)]\n"
    "       [--cpu PINGER,PONGER (none: unpinned)]\n";
// Generous even for a loaded VM, whose stalls reached 2 s, yet short enough that a lost message
// ends the run in seconds.
constexpr nng_duration receive_timeout_ms = 10000;
// The ponger's process may take a while to start and dial.
constexpr nng_duration hello_timeout_ms = 10000;
constexpr std::size_t sequence_offset = 0;
constexpr std::size_t min_size = sizeof(std::uint64_t);
constexpr std::size_t max_size = std::size_t{1} << 20;

struct Options {
  std::size_t size = 116;
  std::size_t echo_size = 68;
  std::uint64_t iterations = 100000;
  std::uint64_t warmup = 10000;
  bool ipc = false;
  std::optional<std::pair<int, int>> cpus;
};

Options parse_options(int argc, char** argv)
{
  Options options;
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (bare::take_count_option(flag, value, options.iterations, options.warmup))
      return;
    if (flag == "--size") {
      options.size =
          parse_number<std::size_t>(value, min_size, max_size, "--size must be 8 to 1048576");
    } else if (flag == "--echo-size") {
      options.echo_size =
          parse_number<std::size_t>(value, min_size, max_size, "--echo-size must be 8 to 1048576");
    } else if (flag == "--transport") {
      if (value != "tcp" && value != "ipc")
        throw UsageError{"--transport must be tcp or ipc"};
      options.ipc = value == "ipc";
    } else if (flag == "--cpu") {
      options.cpus = bare::parse_cpu_pair(value, "--cpu takes PINGER,PONGER, e.g. 0,1");
    } else {
      throw UsageError{"unknown option (known: --size --echo-size --iterations --warmup "
                       "--transport --cpu)"};
    }
  });
  return options;
}

nng_socket open_pair(nng_duration receive_timeout)
{
  nng_socket socket = NNG_SOCKET_INITIALIZER;
  check(nng_pair0_open(&socket), "nng_pair0_open");
  check(nng_socket_set_ms(socket, NNG_OPT_RECVTIMEO, receive_timeout), "NNG_OPT_RECVTIMEO");
  check(nng_socket_set_ms(socket, NNG_OPT_SENDTIMEO, hello_timeout_ms), "NNG_OPT_SENDTIMEO");
  check(nng_socket_set_size(socket, NNG_OPT_RECVMAXSZ, max_size + 64), "NNG_OPT_RECVMAXSZ");
  return socket;
}

// The child: dials (NNG retries until the pinger listens), says hello, answers exactly `total`
// pings with an echo carrying the ping's sequence number.
void run_ponger(const std::string& url, const Options& options)
{
  pin(options.cpus ? std::optional<int>(options.cpus->second) : std::nullopt);
  const nng_socket socket = open_pair(hello_timeout_ms);
  check(nng_socket_set_ms(socket, NNG_OPT_RECONNMINT, 10), "NNG_OPT_RECONNMINT");
  check(nng_dial(socket, url.c_str(), nullptr, NNG_FLAG_NONBLOCK), "nng_dial");
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  check(nng_send(socket, echo.data(), echo.size(), 0), "hello");
  check(nng_socket_set_ms(socket, NNG_OPT_RECVTIMEO, receive_timeout_ms), "NNG_OPT_RECVTIMEO");
  std::vector<std::byte> ping(options.size);
  for (std::uint64_t i = 0; i < options.warmup + options.iterations; ++i) {
    std::size_t size = ping.size();
    check(nng_recv(socket, ping.data(), &size, 0), "receive a ping");
    std::memcpy(echo.data() + sequence_offset, ping.data() + sequence_offset,
                sizeof(std::uint64_t));
    check(nng_send(socket, echo.data(), echo.size(), 0), "send an echo");
  }
  nng_close(socket);
}

// The parent: listens, waits for the hello, then sends a ping, waits for its echo, and keeps
// each measured round trip.
std::vector<std::int64_t> run_pinger(const std::string& url, const Options& options)
{
  pin(options.cpus ? std::optional<int>(options.cpus->first) : std::nullopt);
  const nng_socket socket = open_pair(hello_timeout_ms);
  check(nng_listen(socket, url.c_str(), nullptr, 0), "nng_listen");
  std::vector<std::byte> echo(options.echo_size);
  std::size_t size = echo.size();
  check(nng_recv(socket, echo.data(), &size, 0), "wait for the hello");
  check(nng_socket_set_ms(socket, NNG_OPT_RECVTIMEO, receive_timeout_ms), "NNG_OPT_RECVTIMEO");

  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.iterations);
  for (std::uint64_t sequence = 0; sequence < options.warmup + options.iterations; ++sequence) {
    std::memcpy(ping.data() + sequence_offset, &sequence, sizeof sequence);
    const auto sent_at = Clock::now();
    check(nng_send(socket, ping.data(), ping.size(), 0), "send a ping");
    size = echo.size();
    check(nng_recv(socket, echo.data(), &size, 0), "receive an echo");
    const auto received_at = Clock::now();
    std::uint64_t echoed = 0;
    std::memcpy(&echoed, echo.data() + sequence_offset, sizeof echoed);
    if (size != options.echo_size || echoed != sequence)
      throw Failure{"the echo does not match the ping", 0};
    if (sequence >= options.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(received_at - sent_at).count());
  }
  nng_close(socket);
  return rtts;
}

// Forks the ponger, pings it from here and prints the round trips; 0 when measured.
int measure(const Options& options)
{
  std::string url;
  try {
    url = bare::nng::pick_url(options.ipc, "bare-nng");
  } catch (const Failure& failure) {
    return bare::nng::report_failure(program, "setup", failure, "mismatch");
  }
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    try {
      run_ponger(url, options);
    } catch (const Failure& failure) {
      _exit(bare::nng::report_failure(program, "ponger", failure, "mismatch"));
    }
    _exit(0);
  }
  std::vector<std::int64_t> rtts;
  try {
    rtts = run_pinger(url, options);
  } catch (const Failure& failure) {
    kill(child, SIGKILL);
    bare::reap_child(child, std::chrono::seconds(5));
    if (options.ipc)
      unlink(url.c_str() + std::strlen("ipc://"));
    return bare::nng::report_failure(program, "pinger", failure, "mismatch");
  }
  const bool child_ok = bare::reap_child(child, std::chrono::seconds(10));
  if (options.ipc)
    unlink(url.c_str() + std::strlen("ipc://"));
  if (!child_ok) {
    std::fprintf(stderr, "%s: the ponger did not exit cleanly\n", program);
    return 1;
  }
  std::printf("{\"pattern\":\"pair0\",\"transport\":\"%s\",\"size\":%zu,\"echo_size\":%zu,",
              options.ipc ? "ipc" : "tcp", options.size, options.echo_size);
  bare::print_round_trips(std::move(rtts));
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, measure);
}
