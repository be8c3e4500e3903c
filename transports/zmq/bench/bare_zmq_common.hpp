#pragma once

// What the two bare ZeroMQ baselines (bare_zmq_stream, bare_zmq_pingpong) share, still with no
// netprof code: the socket settings netprof's zmq transport makes, the XSUB's subscribe-then-
// hello handshake, a receive that blocks or spins under a deadline, and a main that forks the
// two processes, each with a context of its own (a ZeroMQ context must never cross a fork).

#include "bare_common.hpp"

#include <zmq.hpp>

#include <sys/prctl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bare {

using Clock = std::chrono::steady_clock;

struct RuntimeError {
  std::string what;
};

enum class Wait { block, spin };

// The options both programs take besides their own.
struct ZmqRun {
  Wait wait = Wait::block;
  bool ipc = false;
  std::optional<std::pair<int, int>> cpus; // in the order --cpu names them
};

// Takes --wait, --transport or --cpu into `run`; false for any other flag.
inline bool take_zmq_option(std::string_view flag, std::string_view value, ZmqRun& run,
                            const char* cpu_usage)
{
  if (flag == "--wait") {
    if (value != "block" && value != "spin")
      throw UsageError{"--wait must be block or spin"};
    run.wait = value == "spin" ? Wait::spin : Wait::block;
  } else if (flag == "--transport") {
    if (value != "tcp" && value != "ipc")
      throw UsageError{"--transport must be tcp or ipc"};
    run.ipc = value == "ipc";
  } else if (flag == "--cpu") {
    run.cpus = parse_cpu_pair(value, cpu_usage);
  } else {
    return false;
  }
  return true;
}

inline std::optional<int> first_cpu(const ZmqRun& run)
{
  return run.cpus ? std::optional<int>(run.cpus->first) : std::nullopt;
}

inline std::optional<int> second_cpu(const ZmqRun& run)
{
  return run.cpus ? std::optional<int>(run.cpus->second) : std::nullopt;
}

inline const char* wait_name(Wait wait)
{
  return wait == Wait::spin ? "spin" : "block";
}

// Before the context exists, so its I/O thread inherits the pinning, as in netprof.
inline void pin_or_throw(std::optional<int> cpu)
{
  if (!pin_to_cpu(cpu))
    throw RuntimeError{std::string("cannot pin to the CPU given with --cpu: ") +
                       std::strerror(errno)};
}

// The settings netprof's zmq transport makes on its socket (transports/zmq/zmq_endpoint.cpp),
// so that what is left between the two is netprof's own code.
struct SocketSettings {
  int hwm = 1000;      // ZMQ_SNDHWM = ZMQ_RCVHWM, in messages; netprof derives it from -q
  int buffer = 0;      // ZMQ_SNDBUF = ZMQ_RCVBUF of each tcp connection; 0: the kernel's
  bool nodrop = false; // ZMQ_XPUB_NODROP: an XPUB waits at its HWM instead of dropping
};

// netprof closes with a 100 ms linger (to flush its last acknowledgements), and sets a maximum
// message size; any limit makes libzmq check each arriving size as netprof's socket does.
inline constexpr int netprof_linger_ms = 100;
inline constexpr std::int64_t max_message_bytes = std::int64_t{1} << 20;

inline void configure_like_netprof(zmq::socket_t& socket, const SocketSettings& settings)
{
  socket.set(zmq::sockopt::sndhwm, settings.hwm);
  socket.set(zmq::sockopt::rcvhwm, settings.hwm);
  socket.set(zmq::sockopt::linger, netprof_linger_ms);
  socket.set(zmq::sockopt::maxmsgsize, max_message_bytes);
  if (settings.nodrop)
    socket.set(zmq::sockopt::xpub_nodrop, true);
  if (settings.buffer > 0) {
    socket.set(zmq::sockopt::sndbuf, settings.buffer);
    socket.set(zmq::sockopt::rcvbuf, settings.buffer);
  }
}

// Any first byte but 0 and 1, which an XSUB and an XPUB take for an (un)subscription.
inline constexpr std::byte hello_tag{'H'};

// The XSUB subscribes to everything before it connects, so every connection starts with the
// subscription; then it connects and says hello behind it, as netprof's subscriber does. PAIR
// says hello alone.
inline void connect_and_say_hello(zmq::socket_t& socket, const std::string& endpoint, bool xsub)
{
  if (xsub) {
    const unsigned char subscribe_all = 1;
    socket.send(zmq::const_buffer(&subscribe_all, 1), zmq::send_flags::none);
  }
  socket.connect(endpoint);
  socket.send(zmq::const_buffer(&hello_tag, 1), zmq::send_flags::none);
}

// Until the peer's hello: an XPUB has applied the subscription in front of it by then, so
// nothing sent afterwards is lost to ZeroMQ's slow joiner. Subscriptions are skipped.
inline void wait_for_hello(zmq::socket_t& socket, std::chrono::milliseconds timeout)
{
  socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
  zmq::message_t message;
  do {
    if (!socket.recv(message, zmq::recv_flags::none))
      throw RuntimeError{"the peer never said hello"};
  } while (message.size() == 0 || message.data<unsigned char>()[0] <= 1);
}

// One message into `message`; false after `timeout`. Blocking relies on the socket's
// ZMQ_RCVTIMEO being that timeout; spinning polls, and reads the clock only when it comes up dry.
inline bool receive(zmq::socket_t& socket, zmq::message_t& message, Wait wait,
                    Clock::duration timeout)
{
  if (wait == Wait::block)
    return static_cast<bool>(socket.recv(message, zmq::recv_flags::none));
  if (socket.recv(message, zmq::recv_flags::dontwait))
    return true;
  const auto deadline = Clock::now() + timeout;
  for (std::uint32_t spins = 1;; ++spins) {
    if (socket.recv(message, zmq::recv_flags::dontwait))
      return true;
    if ((spins & 1023) == 0 && Clock::now() >= deadline)
      return false;
  }
}

// A free loopback port, or a socket file named after the program and this process; chosen
// before the fork, so both processes know it.
inline std::string loopback_endpoint(bool ipc, const char* program)
{
  if (ipc)
    return std::string("ipc:///tmp/") + program + "-" + std::to_string(getpid()) + ".ipc";
  const auto port = free_loopback_tcp_port();
  if (!port)
    throw RuntimeError{std::string("cannot pick a free port: ") + std::strerror(errno)};
  return "tcp://127.0.0.1:" + std::to_string(*port);
}

// Runs `step`; a RuntimeError or ZeroMQ error is printed as "program (role): what", and false.
template <typename Step> bool run_reporting(const char* program, const char* role, Step&& step)
{
  const auto say = [&](const char* what) {
    if (role == nullptr)
      std::fprintf(stderr, "%s: %s\n", program, what);
    else
      std::fprintf(stderr, "%s (%s): %s\n", program, role, what);
  };
  try {
    step();
    return true;
  } catch (const RuntimeError& error) {
    say(error.what.c_str());
  } catch (const zmq::error_t& error) {
    say(error.what());
  }
  return false;
}

// Picks the endpoint, then forks: the child runs child(endpoint) (dying with the parent, so a
// killed benchmark leaves no spinning process behind), the parent runs parent(endpoint) and,
// once the child has exited 0 within `child_timeout` of it, print(result). Returns main's exit
// status: 0 measured, 1 when anything failed (said on stderr).
template <typename Child, typename Parent, typename Print>
int run_two_processes(const char* program, const char* child_role, bool ipc,
                      Clock::duration child_timeout, Child&& child, Parent&& parent, Print&& print)
{
  std::string endpoint;
  if (!run_reporting(program, nullptr, [&] { endpoint = loopback_endpoint(ipc, program); }))
    return 1;
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent_pid = getpid();
  const pid_t child_pid = fork();
  if (child_pid < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", program, std::strerror(errno));
    return 1;
  }
  if (child_pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent_pid)
      _exit(1);
    _exit(run_reporting(program, child_role, [&] { child(endpoint); }) ? 0 : 1);
  }
  decltype(parent(endpoint)) result{};
  const bool measured = run_reporting(program, nullptr, [&] { result = parent(endpoint); });
  if (!measured) {
    kill(child_pid, SIGKILL);
    waitpid(child_pid, nullptr, 0);
  }
  const bool child_done = measured && reap_child(child_pid, child_timeout);
  if (measured && !child_done)
    std::fprintf(stderr, "%s: the %s failed\n", program, child_role);
  if (ipc)
    unlink(endpoint.substr(6).c_str());
  if (!child_done)
    return 1;
  print(std::move(result));
  return 0;
}

} // namespace bare
