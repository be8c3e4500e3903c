#pragma once

// What the two bare ZeroMQ baselines (bare_zmq_stream, bare_zmq_pingpong) share, still with no
// netprof code: the socket settings netprof's zmq transport makes, the XSUB's subscribe-then-
// hello handshake, and a receive that blocks or spins under a deadline. Each process makes a
// context of its own after the fork (bare_two_processes.hpp): a ZeroMQ context must never cross
// a fork.

#include "bare_loopback_endpoint.hpp"

#include <zmq.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace bare {

struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
  } else if (flag == "--cpu") {
    run.cpus = parse_cpu_pair(value, cpu_usage);
  } else {
    return take_transport_option(flag, value, run.ipc);
  }
  return true;
}

inline const char* wait_name(Wait wait)
{
  return wait == Wait::spin ? "spin" : "block";
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

} // namespace bare
