// The floor netprof's ZeroMQ ping-pong is compared against: the leanest honest round trip
// over ZeroMQ between two processes, with cppzmq and no netprof code. By default it uses the
// sockets netprof's zmq transport uses (an XPUB bound by the pinger, an XSUB that connects,
// subscribes to everything and echoes upstream), so the ratio printed by scripts/bench/bench_zmq.sh
// is netprof's own cost; --pattern pair shows what a PAIR socket would give instead.
//
//   bare_zmq_pingpong [--size BYTES] [--iterations N] [--warmup N] [--wait block|spin]
//                     [--cpu PINGER,PONGER] [--pattern xpub-xsub|pair] [--transport tcp|ipc]
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (socket error,
// timeout, lost or corrupt echo), 2 bad command line.

#include "bare_common.hpp"

#include <zmq.hpp>

#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bare::parse_number;
using bare::percentile;
using bare::UsageError;

using Clock = std::chrono::steady_clock;

// Generous for loopback, yet short enough that a lost message ends the run in seconds.
constexpr auto receive_timeout = std::chrono::seconds(2);
constexpr std::size_t max_size = std::size_t{1} << 20;
// Byte 0 is a fixed tag: an upstream message starting with 0 or 1 would be taken for a
// (un)subscription by the XSUB and the XPUB. The sequence number follows, so a stale or
// foreign echo is caught, not timed.
constexpr std::byte tag{0x42};
constexpr std::size_t sequence_offset = 1;
constexpr std::size_t min_size = sequence_offset + sizeof(std::uint64_t);

enum class Wait { block, spin };
enum class Pattern { xpub_xsub, pair };

struct Options {
  std::size_t size = 64;
  std::uint64_t iterations = 100000;
  std::uint64_t warmup = 10000;
  Wait wait = Wait::block;
  Pattern pattern = Pattern::xpub_xsub;
  bool ipc = false;
  std::optional<int> pinger_cpu;
  std::optional<int> ponger_cpu;
};


constexpr const char* usage =
    "usage: bare_zmq_pingpong [--size BYTES (=64)] [--iterations N (=100000)]\n"
    "       [--warmup N (=10000)] [--wait block|spin (=block)] [--cpu PINGER,PONGER]\n"
    "       [--pattern xpub-xsub|pair (=xpub-xsub)] [--transport tcp|ipc (=tcp)]\n";

struct RuntimeError {
  std::string what;
};


Options parse_options(int argc, char** argv)
{
  Options options;
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (flag == "--size") {
      options.size = parse_number<std::size_t>(value, min_size, max_size,
                                               "--size must be 9 to 1048576 bytes");
    } else if (flag == "--iterations") {
      options.iterations = parse_number<std::uint64_t>(value, 1, std::uint64_t{1} << 32,
                                                       "--iterations must be 1 to 2^32");
    } else if (flag == "--warmup") {
      options.warmup = parse_number<std::uint64_t>(value, 0, std::uint64_t{1} << 32,
                                                   "--warmup must be 0 to 2^32");
    } else if (flag == "--wait") {
      if (value == "block")
        options.wait = Wait::block;
      else if (value == "spin")
        options.wait = Wait::spin;
      else
        throw UsageError{"--wait must be block or spin"};
    } else if (flag == "--pattern") {
      if (value == "xpub-xsub")
        options.pattern = Pattern::xpub_xsub;
      else if (value == "pair")
        options.pattern = Pattern::pair;
      else
        throw UsageError{"--pattern must be xpub-xsub or pair"};
    } else if (flag == "--transport") {
      if (value == "tcp" || value == "ipc")
        options.ipc = value == "ipc";
      else
        throw UsageError{"--transport must be tcp or ipc"};
    } else if (flag == "--cpu") {
      std::tie(options.pinger_cpu, options.ponger_cpu) = bare::parse_cpu_pair(value, "--cpu takes PINGER,PONGER, e.g. 0,1");
    } else {
      throw UsageError{"unknown option (known: --size --iterations --warmup --wait --cpu "
                       "--pattern --transport)"};
    }
  });
  return options;
}

// Before the context exists, so its I/O thread inherits the pinning, as in netprof.
void pin_to_cpu(std::optional<int> cpu)
{
  if (!bare::pin_to_cpu(cpu))
    throw RuntimeError{std::string("cannot pin to the CPU given with --cpu: ") +
                       std::strerror(errno)};
}

// A free loopback port, found before the fork so both processes know it.
std::string free_tcp_endpoint()
{
  const auto port = bare::free_loopback_tcp_port();
  if (!port)
    throw RuntimeError{std::string("cannot pick a free port: ") + std::strerror(errno)};
  return "tcp://127.0.0.1:" + std::to_string(*port);
}

void configure(zmq::socket_t& socket, const Options& options)
{
  socket.set(zmq::sockopt::linger, 0);
  if (options.wait == Wait::block)
    socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(receive_timeout / std::chrono::milliseconds(1)));
}

// One message into `message`, or throws on error or after receive_timeout.
void receive(zmq::socket_t& socket, zmq::message_t& message, Wait wait)
{
  if (wait == Wait::block) {
    if (!socket.recv(message, zmq::recv_flags::none))
      throw RuntimeError{"timed out waiting for a message"};
    return;
  }
  const auto deadline = Clock::now() + receive_timeout;
  for (std::uint32_t spins = 1;; ++spins) {
    if (socket.recv(message, zmq::recv_flags::dontwait))
      return;
    if ((spins & 1023) == 0 && Clock::now() >= deadline)
      throw RuntimeError{"timed out waiting for a message"};
  }
}

// The child: connects, subscribes, echoes exactly `total` messages byte for byte, then exits.
void run_ponger(const std::string& endpoint, const Options& options, std::uint64_t total)
{
  pin_to_cpu(options.ponger_cpu);
  zmq::context_t context(1);
  zmq::socket_t socket(context, options.pattern == Pattern::pair ? zmq::socket_type::pair
                                                                  : zmq::socket_type::xsub);
  configure(socket, options);
  if (options.pattern == Pattern::xpub_xsub) {
    const unsigned char subscribe_all = 1;
    socket.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  }
  socket.connect(endpoint);
  if (options.pattern == Pattern::pair) {
    const std::byte hello[1] = {tag};
    socket.send(zmq::const_buffer(hello, 1), zmq::send_flags::none);
  }
  zmq::message_t message;
  for (std::uint64_t i = 0; i < total; ++i) {
    receive(socket, message, options.wait);
    socket.send(zmq::const_buffer(message.data(), message.size()), zmq::send_flags::none);
  }
}

// The parent: binds, waits for the ponger's subscription (or hello), then sends, waits for
// the echo, and keeps each measured round trip.
std::vector<std::int64_t> run_pinger(const std::string& endpoint, const Options& options)
{
  pin_to_cpu(options.pinger_cpu);
  zmq::context_t context(1);
  zmq::socket_t socket(context, options.pattern == Pattern::pair ? zmq::socket_type::pair
                                                                  : zmq::socket_type::xpub);
  configure(socket, options);
  socket.set(zmq::sockopt::rcvtimeo, 10000); // the ponger's process may take a while to start
  socket.bind(endpoint);
  zmq::message_t message;
  if (!socket.recv(message, zmq::recv_flags::none))
    throw RuntimeError{"the ponger never subscribed"};
  if (options.wait == Wait::block)
    socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(receive_timeout / std::chrono::milliseconds(1)));
  else
    socket.set(zmq::sockopt::rcvtimeo, -1);

  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  ping[0] = tag;
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.iterations);
  const std::uint64_t total = options.warmup + options.iterations;
  for (std::uint64_t sequence = 0; sequence < total; ++sequence) {
    std::memcpy(ping.data() + sequence_offset, &sequence, sizeof sequence);
    const auto sent_at = Clock::now();
    socket.send(zmq::const_buffer(ping.data(), ping.size()), zmq::send_flags::none);
    receive(socket, message, options.wait);
    const auto received_at = Clock::now();
    std::uint64_t echoed = 0;
    if (message.size() == ping.size())
      std::memcpy(&echoed, message.data<std::byte>() + sequence_offset, sizeof echoed);
    if (message.size() != ping.size() || echoed != sequence)
      throw RuntimeError{"the echo does not match the message sent"};
    if (sequence >= options.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(received_at - sent_at).count());
  }
  return rtts;
}

// Nearest rank, as netprof's histogram defines it. Per mille in integers, so 99.9% is exact.

void print_result(const Options& options, std::vector<std::int64_t> rtts)
{
  std::sort(rtts.begin(), rtts.end());
  const std::int64_t p50 = percentile(rtts, 500);
  std::printf("{\"pattern\":\"%s\",\"transport\":\"%s\",\"wait\":\"%s\",\"size\":%zu,"
              "\"iterations\":%llu,\"rtt_min_ns\":%lld,\"rtt_p50_ns\":%lld,"
              "\"one_way_p50_ns\":%.1f,\"rtt_p90_ns\":%lld,\"rtt_p99_ns\":%lld,"
              "\"rtt_p99_9_ns\":%lld,\"rtt_max_ns\":%lld}\n",
              options.pattern == Pattern::pair ? "pair" : "xpub-xsub",
              options.ipc ? "ipc" : "tcp", options.wait == Wait::spin ? "spin" : "block",
              options.size, static_cast<unsigned long long>(rtts.size()),
              static_cast<long long>(rtts.front()), static_cast<long long>(p50),
              static_cast<double>(p50) / 2.0, static_cast<long long>(percentile(rtts, 900)),
              static_cast<long long>(percentile(rtts, 990)),
              static_cast<long long>(percentile(rtts, 999)), static_cast<long long>(rtts.back()));
}

// The ponger's status once it is done; kills it if it is not done within the timeout.
bool reap_ponger(pid_t ponger)
{
  return bare::reap_child(ponger, receive_timeout);
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& error) {
    if (error.message == nullptr) {
      std::fputs(usage, stdout);
      return 0;
    }
    std::fprintf(stderr, "bare_zmq_pingpong: %s\n%s", error.message, usage);
    return 2;
  }

  // Chosen before the fork, and each process makes its own context after it: a ZeroMQ
  // context must never cross a fork.
  std::string endpoint;
  try {
    endpoint = options.ipc ? "ipc:///tmp/bare_zmq_pingpong-" + std::to_string(getpid()) + ".ipc"
                           : free_tcp_endpoint();
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "bare_zmq_pingpong: %s\n", error.what.c_str());
    return 1;
  }

  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent = getpid();
  const pid_t ponger = fork();
  if (ponger < 0) {
    std::fprintf(stderr, "bare_zmq_pingpong: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (ponger == 0) {
    // Dies with the pinger, so a killed benchmark leaves no spinning process behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(1);
    try {
      run_ponger(endpoint, options, options.warmup + options.iterations);
    } catch (const RuntimeError& error) {
      std::fprintf(stderr, "bare_zmq_pingpong (ponger): %s\n", error.what.c_str());
      _exit(1);
    } catch (const zmq::error_t& error) {
      std::fprintf(stderr, "bare_zmq_pingpong (ponger): %s\n", error.what());
      _exit(1);
    }
    _exit(0);
  }

  std::vector<std::int64_t> rtts;
  int status = 0;
  try {
    rtts = run_pinger(endpoint, options);
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "bare_zmq_pingpong: %s\n", error.what.c_str());
    status = 1;
  } catch (const zmq::error_t& error) {
    std::fprintf(stderr, "bare_zmq_pingpong: %s\n", error.what());
    status = 1;
  }
  if (options.ipc)
    unlink(endpoint.substr(6).c_str());
  if (status != 0) {
    kill(ponger, SIGKILL);
    waitpid(ponger, nullptr, 0);
    return status;
  }
  if (!reap_ponger(ponger)) {
    std::fprintf(stderr, "bare_zmq_pingpong: the ponger failed\n");
    return 1;
  }
  print_result(options, std::move(rtts));
  return 0;
}
