// The floor netprof's ZeroMQ ping-pong is compared against: the leanest honest round trip over
// ZeroMQ between two processes, with cppzmq and no netprof code. By default it uses the sockets
// netprof's zmq transport uses, set up as netprof sets them (bare_zmq_common.hpp): an XPUB bound
// by the pinger; an XSUB that subscribes to everything, connects, says hello upstream and
// answers each ping upstream. With --size 116 --echo-size 52 the wire sizes are netprof's too
// (`-s 64` plus its 52-byte header out, a bare header back), so the ratio printed by
// transports/zmq/bench/bench_zmq.sh is netprof's own cost; --pattern pair shows what a PAIR socket
// would give for the same bytes.
//
//   bare_zmq_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                     [--wait block|spin] [--cpu PINGER,PONGER] [--pattern xpub-xsub|pair]
//                     [--transport tcp|ipc]
//
// One message in flight: no high-water mark or socket buffer is ever reached, so they keep
// ZeroMQ's and the kernel's defaults. Prints one JSON line on stdout. Exit status: 0 measured,
// 1 runtime error (socket error, timeout, lost or corrupt echo), 2 bad command line.

#include "bare_zmq_common.hpp"

#include <zmq.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace bare;

constexpr const char* program = "bare_zmq_pingpong";
// Generous for loopback, yet short enough that a lost message ends the run in seconds.
constexpr auto receive_timeout = std::chrono::seconds(2);
// The ponger's process may take a while to start.
constexpr auto hello_timeout = std::chrono::seconds(10);
constexpr std::size_t max_size = std::size_t{1} << 20;
// Byte 0 is a fixed tag: an upstream message starting with 0 or 1 would be taken for a
// (un)subscription by the XSUB and the XPUB. The sequence number follows, in the ping and in
// its echo, so a stale or foreign echo is caught, not timed.
constexpr std::byte tag{0x42};
constexpr std::size_t sequence_offset = 1;
constexpr std::size_t min_size = sequence_offset + sizeof(std::uint64_t);

enum class Pattern { xpub_xsub, pair };

struct Options {
  std::size_t size = 64;
  std::optional<std::size_t> echo_size; // none: the ping's size
  std::uint64_t iterations = 100000;
  std::uint64_t warmup = 10000;
  Pattern pattern = Pattern::xpub_xsub;
  bare::ZmqRun run;

  std::size_t echo_bytes() const { return echo_size.value_or(size); }
};

constexpr const char* usage =
    "usage: bare_zmq_pingpong [--size BYTES (=64)] [--echo-size BYTES (=--size)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--wait block|spin (=block)]\n"
    "       [--cpu PINGER,PONGER] [--pattern xpub-xsub|pair (=xpub-xsub)]\n"
    "       [--transport tcp|ipc (=tcp)]\n";

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size") {
    options.size =
        parse_number<std::size_t>(value, min_size, max_size, "--size must be 9 to 1048576 bytes");
  } else if (flag == "--echo-size") {
    options.echo_size = parse_number<std::size_t>(value, min_size, max_size,
                                                  "--echo-size must be 9 to 1048576 bytes");
  } else if (flag == "--pattern") {
    if (value != "xpub-xsub" && value != "pair")
      throw UsageError{"--pattern must be xpub-xsub or pair"};
    options.pattern = value == "pair" ? Pattern::pair : Pattern::xpub_xsub;
  } else {
    return bare::take_count_option(flag, value, options.iterations, options.warmup) ||
           bare::take_zmq_option(flag, value, options.run, "--cpu takes PINGER,PONGER, e.g. 0,1");
  }
  return true;
}

Options parse_options(int argc, char** argv)
{
  return bare::parse_command_line<Options>(argc, argv, take_option);
}

void set_receive_timeout(zmq::socket_t& socket, Wait wait)
{
  // Spinning polls without waiting and keeps its own deadline.
  socket.set(zmq::sockopt::rcvtimeo,
             wait == Wait::block ? static_cast<int>(receive_timeout / std::chrono::milliseconds(1))
                                 : -1);
}

void receive(zmq::socket_t& socket, zmq::message_t& message, Wait wait)
{
  if (!bare::receive(socket, message, wait, receive_timeout))
    throw RuntimeError{"timed out waiting for a message"};
}

// The child: connects, says hello, answers exactly `total` pings with an echo of
// --echo-size bytes carrying the ping's sequence number, then exits.
void run_ponger(const std::string& endpoint, const Options& options, std::uint64_t total)
{
  bare::pin_or_throw(bare::second_cpu(options.run.cpus));
  zmq::context_t context(1);
  const bool pair = options.pattern == Pattern::pair;
  zmq::socket_t socket(context, pair ? zmq::socket_type::pair : zmq::socket_type::xsub);
  bare::configure_like_netprof(socket, {});
  set_receive_timeout(socket, options.run.wait);
  bare::connect_and_say_hello(socket, endpoint, !pair);
  std::vector<std::byte> echo(options.echo_bytes(), std::byte{0x5a});
  echo[0] = tag;
  zmq::message_t message;
  for (std::uint64_t i = 0; i < total; ++i) {
    receive(socket, message, options.run.wait);
    if (message.size() < min_size)
      throw RuntimeError{"a ping too short to carry a sequence number"};
    std::memcpy(echo.data() + sequence_offset, message.data<std::byte>() + sequence_offset,
                sizeof(std::uint64_t));
    socket.send(zmq::const_buffer(echo.data(), echo.size()), zmq::send_flags::none);
  }
}

// The parent: binds, waits for the ponger's hello, then sends, waits for the echo, and keeps
// each measured round trip.
std::vector<std::int64_t> run_pinger(const std::string& endpoint, const Options& options)
{
  bare::pin_or_throw(bare::first_cpu(options.run.cpus));
  zmq::context_t context(1);
  const bool pair = options.pattern == Pattern::pair;
  zmq::socket_t socket(context, pair ? zmq::socket_type::pair : zmq::socket_type::xpub);
  bare::configure_like_netprof(socket, {});
  socket.bind(endpoint);
  bare::wait_for_hello(socket, hello_timeout);
  set_receive_timeout(socket, options.run.wait);

  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  ping[0] = tag;
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.iterations);
  zmq::message_t message;
  const std::uint64_t total = options.warmup + options.iterations;
  for (std::uint64_t sequence = 0; sequence < total; ++sequence) {
    std::memcpy(ping.data() + sequence_offset, &sequence, sizeof sequence);
    const auto sent_at = Clock::now();
    socket.send(zmq::const_buffer(ping.data(), ping.size()), zmq::send_flags::none);
    receive(socket, message, options.run.wait);
    const auto received_at = Clock::now();
    std::uint64_t echoed = 0;
    if (message.size() == options.echo_bytes())
      std::memcpy(&echoed, message.data<std::byte>() + sequence_offset, sizeof echoed);
    if (message.size() != options.echo_bytes() || echoed != sequence)
      throw RuntimeError{"the echo does not match the message sent"};
    if (sequence >= options.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(received_at - sent_at).count());
  }
  return rtts;
}

void print_result(const Options& options, std::vector<std::int64_t> rtts)
{
  std::printf("{\"pattern\":\"%s\",\"transport\":\"%s\",\"wait\":\"%s\",\"size\":%zu,"
              "\"echo_size\":%zu,",
              options.pattern == Pattern::pair ? "pair" : "xpub-xsub",
              options.run.ipc ? "ipc" : "tcp", bare::wait_name(options.run.wait), options.size,
              options.echo_bytes());
  bare::print_round_trips(std::move(rtts));
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, [](const Options& options) {
    return bare::run_two_processes_over_loopback(
        {program, "pinger", "ponger", receive_timeout}, options.run.ipc,
        [&](const std::string& endpoint) {
          run_ponger(endpoint, options, options.warmup + options.iterations);
        },
        [&](const std::string& endpoint) { return run_pinger(endpoint, options); },
        [&](std::vector<std::int64_t> rtts) { print_result(options, std::move(rtts)); });
  });
}
