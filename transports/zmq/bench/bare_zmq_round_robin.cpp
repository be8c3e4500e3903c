// The floor netprof's --fanout round-robin over ZeroMQ PUSH/PULL is compared against (RMR's
// experiment, ZeroMQ's half): a sender process with a PUSH socket bound on loopback tcp, and
// receiver processes each connecting a PULL to it, no netprof code. Once every receiver's
// connection has shaken hands, the sender pushes --count messages with blocking sends, PUSH
// dealing each to the next receiver in turn (passing over one whose queue is full); then end
// markers, dealt the same way, until every receiver has reported (bench/bare_dealing.hpp).
// transports/zmq/bench/bench_zmq_round_robin.sh prints netprof's ratio to it.
//
//   bare_zmq_round_robin [--receivers N] [--count N] [--size BYTES] [--warmup S] [--hwm N]
//                        [--buffer BYTES] [--cpu SENDER,RECEIVERS]
//
// Like for like with `netprof --zmq tcp://... --zmq-pattern pushpull --fanout round-robin
// --subscribers N --count C -s 128 -q 1000000`: --size 180 (netprof's 52 B header and the
// payload), --hwm 5556 and --buffer 1000000 (what netprof derives from -q), the sockets set up
// as netprof sets them (bare_zmq_common.hpp), --warmup 0.5 as --warmup-time. netprof's
// publisher also sends 1,000 probes a second to every subscriber over its XPUB and reads their
// echoes: that, and all else netprof does per message, is what the ratio measures. The rate is
// the sender's: --count messages over the time from the first measured send to the last.
// Prints one JSON line. Exit status: 0 measured, 1 runtime error (or a message lost), 2 bad
// command line.

#include "bare_dealing.hpp"
#include "bare_zmq_common.hpp"

#include <zmq.h>
#include <zmq.hpp>

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace bare;

constexpr const char* program = "bare_zmq_round_robin";
constexpr const char* usage =
    "usage: bare_zmq_round_robin [--receivers N (=5)] [--count N (=1000000)] [--size BYTES "
    "(=180)]\n"
    "       [--warmup S (=0.5)] [--hwm N (=5556)] [--buffer BYTES (=1000000)]\n"
    "       [--cpu SENDER,RECEIVERS (none: unpinned)]\n";
constexpr int receive_timeout_ms = 10000;

struct Options {
  std::size_t receivers = 5;
  std::uint64_t count = 1000000;
  std::size_t size = 180;
  double warmup = 0.5;
  SocketSettings socket{.hwm = 5556, .buffer = 1000000, .nodrop = false};
  std::optional<std::pair<int, int>> cpus;
};

bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (take_dealing_option(flag, value, options.receivers, options.count))
    return true;
  if (flag == "--size")
    options.size =
        parse_number<std::size_t>(value, 1, max_message_bytes, "--size must be 1 to 1048576");
  else if (flag == "--warmup")
    options.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  else if (flag == "--hwm")
    options.socket.hwm = parse_number<int>(value, 1, 1 << 24, "--hwm must be 1 to 16777216");
  else if (flag == "--buffer")
    options.socket.buffer =
        parse_number<int>(value, 0, 1 << 30, "--buffer must be 0 to 1073741824 bytes");
  else if (flag == "--cpu")
    options.cpus = parse_cpu_pair(value, "--cpu takes SENDER,RECEIVERS, e.g. 0,1");
  else
    return false;
  return true;
}

// A receiver process: counts the measured messages until its first end marker.
void run_receiver(const std::string& endpoint, const Options& options, int results)
{
  pin_or_throw(second_cpu(options.cpus));
  zmq::context_t context(1);
  zmq::socket_t pull(context, zmq::socket_type::pull);
  configure_like_netprof(pull, options.socket);
  pull.set(zmq::sockopt::rcvtimeo, receive_timeout_ms);
  pull.connect(endpoint);
  Counted counted;
  zmq::message_t message;
  for (;;) {
    if (!pull.recv(message, zmq::recv_flags::none))
      throw RuntimeError{"no message for 10 s"};
    const std::byte first = message.size() > 0 ? *message.data<std::byte>() : std::byte{0};
    if (first == end_tag)
      break;
    if (first == data_tag)
      ++counted.received;
  }
  report_counted(results, counted);
}

// Until `receivers` connections to `push` have shaken hands, as its monitor reports them.
void wait_for_receivers(zmq::context_t& context, zmq::socket_t& push, std::size_t receivers)
{
  const char* monitor_endpoint = "inproc://bare-zmq-round-robin-monitor";
  if (zmq_socket_monitor(push.handle(), monitor_endpoint, ZMQ_EVENT_HANDSHAKE_SUCCEEDED) != 0)
    throw RuntimeError{std::string("zmq_socket_monitor: ") + zmq_strerror(zmq_errno())};
  zmq::socket_t events(context, zmq::socket_type::pair);
  events.set(zmq::sockopt::rcvtimeo, static_cast<int>(gather_limit / std::chrono::milliseconds(1)));
  events.connect(monitor_endpoint);
  for (std::size_t shaken = 0; shaken < receivers;) {
    zmq::message_t event;
    zmq::message_t address; // each event comes in two frames: its id and value, then the address
    if (!events.recv(event, zmq::recv_flags::none) || !events.recv(address, zmq::recv_flags::none))
      throw RuntimeError{"not every receiver connected within 10 s"};
    std::uint16_t id = 0;
    if (event.size() >= sizeof id)
      std::memcpy(&id, event.data(), sizeof id);
    shaken += id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED ? 1 : 0;
  }
  zmq_socket_monitor(push.handle(), nullptr, 0);
}

// The sender: waits for every receiver, deals the warm-up and the measured messages, then end
// markers until each receiver reported. Returns the measured sends' time.
Clock::duration deal(const std::string& endpoint, const Options& options, Reports& reports)
{
  pin_or_throw(first_cpu(options.cpus));
  zmq::context_t context(1);
  zmq::socket_t push(context, zmq::socket_type::push);
  configure_like_netprof(push, options.socket);
  push.bind(endpoint);
  wait_for_receivers(context, push, options.receivers);
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  const auto send = [&] {
    if (zmq_send(push.handle(), message.data(), message.size(), 0) < 0)
      throw RuntimeError{std::string("send: ") + zmq_strerror(zmq_errno())};
  };
  const auto measured = deal_phases(message, options.warmup, options.count, reports, send);
  return measured;
}

int run(const Options& options)
{
  return run_dealt(
      program, options.receivers, options.count, options.size,
      ",\"hwm\":" + std::to_string(options.socket.hwm) +
          ",\"buffer\":" + std::to_string(options.socket.buffer),
      [&](const std::string& endpoint, int results) { run_receiver(endpoint, options, results); },
      [&](const std::string& endpoint, Reports& reports) {
        return deal(endpoint, options, reports);
      });
}

} // namespace

int main(int argc, char** argv)
{
  return run_main(argc, argv, program, usage, command_line_parser<Options>(take_option), run);
}
