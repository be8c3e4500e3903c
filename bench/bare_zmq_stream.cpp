// The floor netprof's ZeroMQ stream mode is compared against: one sender blasting messages as
// fast as ZeroMQ takes them, one receiver counting them, with cppzmq and no netprof code. By
// default it uses netprof's sockets (XPUB bound by the sender, XSUB connected by the
// receiver; the XPUB drops at its high-water mark like netprof's), so the ratio printed by
// scripts/bench/bench_zmq.sh is netprof's own cost; --pattern push-pull shows a lossless PUSH/PULL
// blast instead.
//
//   bare_zmq_stream [--size BYTES] [--seconds S] [--warmup S] [--hwm N] [--buffer BYTES]
//                   [--wait block|spin] [--cpu SENDER,RECEIVER]
//                   [--pattern xpub-xsub|push-pull] [--transport tcp|ipc]
//
// The receiver's rate is taken on its own clock from the first to the last measured message,
// as netprof's subscriber does. Prints one JSON line on stdout. Exit status: 0 measured,
// 1 runtime error, 2 bad command line.

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

constexpr auto start_timeout = std::chrono::seconds(10);
constexpr auto idle_timeout = std::chrono::seconds(5);
constexpr auto end_repeat_time = std::chrono::milliseconds(500);
constexpr std::size_t max_size = std::size_t{1} << 20;
// Byte 0 says what the message is, never 0 or 1 (which an XSUB/XPUB would take for a
// subscription); the sequence number, or the total sent in an END, follows.
constexpr std::byte warmup_tag{'W'};
constexpr std::byte data_tag{'D'};
constexpr std::byte end_tag{'E'};
constexpr std::size_t number_offset = 1;
constexpr std::size_t min_size = number_offset + sizeof(std::uint64_t);

enum class Wait { block, spin };
enum class Pattern { xpub_xsub, push_pull };

struct Options {
  std::size_t size = 180;
  double seconds = 3.0;
  double warmup = 0.5;
  int hwm = 1000;
  int buffer = 0;
  Wait wait = Wait::block;
  Pattern pattern = Pattern::xpub_xsub;
  bool ipc = false;
  std::optional<int> sender_cpu;
  std::optional<int> receiver_cpu;
};


constexpr const char* usage =
    "usage: bare_zmq_stream [--size BYTES (=180)] [--seconds S (=3)] [--warmup S (=0.5)]\n"
    "       [--hwm N (=1000)] [--buffer BYTES (=0: OS default)] [--wait block|spin (=block)]\n"
    "       [--cpu SENDER,RECEIVER] [--pattern xpub-xsub|push-pull (=xpub-xsub)]\n"
    "       [--transport tcp|ipc (=tcp)]\n";

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
    } else if (flag == "--seconds") {
      options.seconds = parse_number<double>(value, 0.1, 3600.0, "--seconds must be 0.1 to 3600");
    } else if (flag == "--warmup") {
      options.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
    } else if (flag == "--hwm") {
      options.hwm = parse_number<int>(value, 0, 1 << 30, "--hwm must be 0 to 2^30 messages");
    } else if (flag == "--buffer") {
      options.buffer = parse_number<int>(value, 0, 1 << 30, "--buffer must be 0 to 2^30 bytes");
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
      else if (value == "push-pull")
        options.pattern = Pattern::push_pull;
      else
        throw UsageError{"--pattern must be xpub-xsub or push-pull"};
    } else if (flag == "--transport") {
      if (value == "tcp" || value == "ipc")
        options.ipc = value == "ipc";
      else
        throw UsageError{"--transport must be tcp or ipc"};
    } else if (flag == "--cpu") {
      std::tie(options.sender_cpu, options.receiver_cpu) = bare::parse_cpu_pair(value, "--cpu takes SENDER,RECEIVER, e.g. 0,1");
    } else {
      throw UsageError{"unknown option (known: --size --seconds --warmup --hwm --buffer --wait "
                       "--cpu --pattern --transport)"};
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

std::string free_tcp_endpoint()
{
  const auto port = bare::free_loopback_tcp_port();
  if (!port)
    throw RuntimeError{std::string("cannot pick a free port: ") + std::strerror(errno)};
  return "tcp://127.0.0.1:" + std::to_string(*port);
}

// The same queue settings netprof derives from -q: a high-water mark in messages each way and
// the kernel buffers of each tcp connection.
void configure(zmq::socket_t& socket, const Options& options)
{
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::sndhwm, options.hwm);
  socket.set(zmq::sockopt::rcvhwm, options.hwm);
  if (options.buffer > 0) {
    socket.set(zmq::sockopt::sndbuf, options.buffer);
    socket.set(zmq::sockopt::rcvbuf, options.buffer);
  }
}

std::chrono::nanoseconds seconds(double value)
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(value));
}

// The child: binds, waits for the receiver, warms up, blasts, then repeats END (which carries
// the number of measured messages sent) for a while, since the XPUB may drop any one of them.
void run_sender(const std::string& endpoint, const Options& options)
{
  pin_to_cpu(options.sender_cpu);
  zmq::context_t context(1);
  zmq::socket_t socket(context, options.pattern == Pattern::push_pull ? zmq::socket_type::push
                                                                       : zmq::socket_type::xpub);
  configure(socket, options);
  socket.bind(endpoint);
  if (options.pattern == Pattern::xpub_xsub) {
    // The receiver's subscription: from here on nothing sent is lost to the slow joiner.
    socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(start_timeout / std::chrono::milliseconds(1)));
    zmq::message_t subscription;
    if (!socket.recv(subscription, zmq::recv_flags::none))
      throw RuntimeError{"the receiver never subscribed"};
  }
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  const auto blast = [&](std::byte tag, std::chrono::nanoseconds length) {
    message[0] = tag;
    const auto end = Clock::now() + length;
    std::uint64_t sent = 0;
    for (;; ++sent) {
      if ((sent & 255) == 0 && Clock::now() >= end)
        return sent;
      std::memcpy(message.data() + number_offset, &sent, sizeof sent);
      // Blocking send: PUSH waits at its HWM, XPUB never waits (it drops).
      socket.send(zmq::const_buffer(message.data(), message.size()), zmq::send_flags::none);
    }
  };
  blast(warmup_tag, seconds(options.warmup));
  const std::uint64_t sent = blast(data_tag, seconds(options.seconds));

  std::byte end[min_size] = {end_tag};
  std::memcpy(end + number_offset, &sent, sizeof sent);
  const auto stop = Clock::now() + end_repeat_time;
  while (Clock::now() < stop) {
    socket.send(zmq::const_buffer(end, sizeof end), zmq::send_flags::dontwait);
    usleep(1000);
  }
}

struct Result {
  std::uint64_t received = 0;
  std::uint64_t sent = 0;
  double seconds = 0;
};

// The parent: connects, counts measured messages on its own clock until the first END.
Result run_receiver(const std::string& endpoint, const Options& options)
{
  pin_to_cpu(options.receiver_cpu);
  zmq::context_t context(1);
  zmq::socket_t socket(context, options.pattern == Pattern::push_pull ? zmq::socket_type::pull
                                                                       : zmq::socket_type::xsub);
  configure(socket, options);
  if (options.pattern == Pattern::xpub_xsub) {
    const unsigned char subscribe_all = 1;
    socket.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  }
  socket.connect(endpoint);
  socket.set(zmq::sockopt::rcvtimeo,
             static_cast<int>(idle_timeout / std::chrono::milliseconds(1)) +
                 static_cast<int>(options.warmup * 1000));

  Result result;
  Clock::time_point first{};
  Clock::time_point last{};
  zmq::message_t message;
  const auto flags = options.wait == Wait::spin ? zmq::recv_flags::dontwait : zmq::recv_flags::none;
  auto give_up = Clock::now() + start_timeout + idle_timeout;
  for (std::uint32_t spins = 1;; ++spins) {
    if (!socket.recv(message, flags)) {
      if (options.wait == Wait::block || ((spins & 1023) == 0 && Clock::now() >= give_up))
        throw RuntimeError{"timed out waiting for a message"};
      continue;
    }
    const auto tag = message.size() >= min_size ? message.data<std::byte>()[0] : std::byte{0};
    if (tag == data_tag) {
      last = Clock::now();
      if (result.received++ == 0)
        first = last;
      if (options.wait == Wait::spin && (result.received & 1023) == 0)
        give_up = last + idle_timeout;
    } else if (tag == end_tag) {
      std::memcpy(&result.sent, message.data<std::byte>() + number_offset, sizeof result.sent);
      break;
    } else if (tag != warmup_tag) {
      throw RuntimeError{"a message that the sender did not send"};
    }
  }
  result.seconds = std::chrono::duration<double>(last - first).count();
  return result;
}

bool reap(pid_t child)
{
  return bare::reap_child(child, end_repeat_time + std::chrono::seconds(5));
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
    std::fprintf(stderr, "bare_zmq_stream: %s\n%s", error.message, usage);
    return 2;
  }

  // Chosen before the fork, and each process makes its own context after it: a ZeroMQ
  // context must never cross a fork.
  std::string endpoint;
  try {
    endpoint = options.ipc ? "ipc:///tmp/bare_zmq_stream-" + std::to_string(getpid()) + ".ipc"
                           : free_tcp_endpoint();
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "bare_zmq_stream: %s\n", error.what.c_str());
    return 1;
  }

  std::fflush(stdout);
  const pid_t parent = getpid();
  const pid_t sender = fork();
  if (sender < 0) {
    std::fprintf(stderr, "bare_zmq_stream: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (sender == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); // dies with the receiver: no blasting orphan
    if (getppid() != parent)
      _exit(1);
    try {
      run_sender(endpoint, options);
    } catch (const RuntimeError& error) {
      std::fprintf(stderr, "bare_zmq_stream (sender): %s\n", error.what.c_str());
      _exit(1);
    } catch (const zmq::error_t& error) {
      std::fprintf(stderr, "bare_zmq_stream (sender): %s\n", error.what());
      _exit(1);
    }
    _exit(0);
  }

  Result result;
  int status = 0;
  try {
    result = run_receiver(endpoint, options);
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "bare_zmq_stream: %s\n", error.what.c_str());
    status = 1;
  } catch (const zmq::error_t& error) {
    std::fprintf(stderr, "bare_zmq_stream: %s\n", error.what());
    status = 1;
  }
  if (status != 0) {
    kill(sender, SIGKILL);
    waitpid(sender, nullptr, 0);
  } else if (!reap(sender)) {
    std::fprintf(stderr, "bare_zmq_stream: the sender failed\n");
    status = 1;
  }
  if (options.ipc)
    unlink(endpoint.substr(6).c_str());
  if (status != 0)
    return status;
  const double rate = result.seconds > 0 ? static_cast<double>(result.received) / result.seconds : 0;
  std::printf("{\"pattern\":\"%s\",\"transport\":\"%s\",\"wait\":\"%s\",\"size\":%zu,"
              "\"hwm\":%d,\"buffer\":%d,\"sent\":%llu,\"received\":%llu,\"lost\":%lld,"
              "\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
              options.pattern == Pattern::push_pull ? "push-pull" : "xpub-xsub",
              options.ipc ? "ipc" : "tcp", options.wait == Wait::spin ? "spin" : "block",
              options.size, options.hwm, options.buffer,
              static_cast<unsigned long long>(result.sent),
              static_cast<unsigned long long>(result.received),
              static_cast<long long>(result.sent) - static_cast<long long>(result.received),
              result.seconds, rate);
  return 0;
}
