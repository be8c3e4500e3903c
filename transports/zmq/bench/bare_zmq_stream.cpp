// The floor netprof's ZeroMQ stream mode is compared against: one sender blasting messages as
// fast as ZeroMQ takes them, one receiver counting them, with cppzmq and no netprof code. By
// default it uses netprof's sockets, set up as netprof sets them (bare_zmq_common.hpp): an XPUB
// bound by the sender, dropping at its high-water mark or, with --nodrop on, waiting there
// (ZMQ_XPUB_NODROP, as netprof's --zmq-nodrop); an XSUB that subscribes, connects and says
// hello upstream, then answers --probe-hz messages a second (netprof's probes) with an echo of
// --echo-size bytes, and the END with its count, on the same socket. So the ratio printed by
// transports/zmq/bench/bench_zmq.sh is netprof's own cost. --pattern push-pull shows a lossless
// PUSH/PULL blast of the same messages instead, which has no way back.
//
//   bare_zmq_stream [--size BYTES] [--echo-size BYTES] [--seconds S] [--warmup S] [--hwm N]
//                   [--buffer BYTES] [--nodrop on|off] [--probe-hz HZ] [--wait block|spin]
//                   [--cpu SENDER,RECEIVER] [--pattern xpub-xsub|push-pull]
//                   [--transport tcp|ipc]
//
// The receiver's rate is taken on its own clock from the first to the last measured message,
// as netprof's subscriber does. Prints one JSON line on stdout. Exit status: 0 measured,
// 1 runtime error, 2 bad command line.

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

constexpr const char* program = "bare_zmq_stream";
constexpr auto start_timeout = std::chrono::seconds(10);
// How long the sender repeats its END while no final count comes back (an XPUB may drop any
// one copy), and how long it waits for that count after each copy.
constexpr auto end_time = std::chrono::seconds(2);
constexpr auto end_resend_interval = std::chrono::milliseconds(1);
constexpr std::size_t max_size = std::size_t{1} << 20;
// Byte 0 says what the message is, never 0 or 1 (which an XSUB/XPUB would take for a
// subscription); byte 1 marks a probe the receiver answers; the sequence number (in an END the
// number of measured messages sent, in a final count the number received) follows.
constexpr std::byte warmup_tag{'W'};
constexpr std::byte data_tag{'D'};
constexpr std::byte end_tag{'E'};
constexpr std::byte echo_tag{'A'};
constexpr std::byte final_tag{'F'};
constexpr std::size_t probe_offset = 1;
constexpr std::byte probe_mark{1};
constexpr std::size_t number_offset = 2;
constexpr std::size_t min_size = number_offset + sizeof(std::uint64_t);
// The sender reads its clock once per this many sends (and marks a probe, and takes what waits
// on its back channel, when one is due).
constexpr std::uint64_t sends_per_check = 256;

enum class Pattern { xpub_xsub, push_pull };

struct Options {
  std::size_t size = 180;
  std::optional<std::size_t> echo_size; // none: --size
  double seconds = 3.0;
  double warmup = 0.5;
  double probe_hz = 1000;
  bare::SocketSettings socket;
  Pattern pattern = Pattern::xpub_xsub;
  bare::ZmqRun run;

  std::size_t echo_bytes() const { return echo_size.value_or(size); }
  bool back_channel() const { return pattern == Pattern::xpub_xsub; }
};

constexpr const char* usage =
    "usage: bare_zmq_stream [--size BYTES (=180)] [--echo-size BYTES (=--size)]\n"
    "       [--seconds S (=3)] [--warmup S (=0.5)] [--hwm N (=1000)]\n"
    "       [--buffer BYTES (=0: OS default)] [--nodrop on|off (=off)] [--probe-hz HZ (=1000)]\n"
    "       [--wait block|spin (=block)] [--cpu SENDER,RECEIVER]\n"
    "       [--pattern xpub-xsub|push-pull (=xpub-xsub)] [--transport tcp|ipc (=tcp)]\n";

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size") {
    options.size =
        parse_number<std::size_t>(value, min_size, max_size, "--size must be 10 to 1048576 bytes");
  } else if (flag == "--echo-size") {
    options.echo_size = parse_number<std::size_t>(value, min_size, max_size,
                                                  "--echo-size must be 10 to 1048576 bytes");
  } else if (flag == "--seconds") {
    options.seconds = parse_number<double>(value, 0.1, 3600.0, "--seconds must be 0.1 to 3600");
  } else if (flag == "--warmup") {
    options.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  } else if (flag == "--probe-hz") {
    options.probe_hz = parse_number<double>(value, 0.0, 1e6, "--probe-hz must be 0 to 1e6");
  } else if (flag == "--hwm") {
    options.socket.hwm = parse_number<int>(value, 0, 1 << 30, "--hwm must be 0 to 2^30 messages");
  } else if (flag == "--buffer") {
    options.socket.buffer =
        parse_number<int>(value, 0, 1 << 30, "--buffer must be 0 to 2^30 bytes");
  } else if (flag == "--nodrop") {
    if (value != "on" && value != "off")
      throw UsageError{"--nodrop must be on or off"};
    options.socket.nodrop = value == "on";
  } else if (flag == "--pattern") {
    if (value != "xpub-xsub" && value != "push-pull")
      throw UsageError{"--pattern must be xpub-xsub or push-pull"};
    options.pattern = value == "push-pull" ? Pattern::push_pull : Pattern::xpub_xsub;
  } else {
    return bare::take_zmq_option(flag, value, options.run, "--cpu takes SENDER,RECEIVER, e.g. 0,1");
  }
  return true;
}

Options parse_options(int argc, char** argv)
{
  Options options = bare::parse_command_line<Options>(argc, argv, take_option);
  if (options.pattern == Pattern::push_pull && options.socket.nodrop)
    throw UsageError{"--nodrop is for xpub-xsub: a PUSH always waits at its high-water mark"};
  return options;
}

std::chrono::nanoseconds seconds(double value)
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(value));
}

bool is_final_count(const zmq::message_t& message)
{
  return message.size() > 0 && message.data<std::byte>()[0] == final_tag;
}

// Everything waiting on the back channel (echoes, subscriptions) is taken and dropped, as a
// sender must, or the receiver's upstream queue fills; true when the final count was in it.
bool drain_back_channel(zmq::socket_t& socket)
{
  zmq::message_t message;
  bool final_count = false;
  while (socket.recv(message, zmq::recv_flags::dontwait))
    final_count = final_count || is_final_count(message);
  return final_count;
}

// After the blast: the END carries the number of measured messages sent. A PUSH delivers it
// behind the data, once the socket closes (no linger limit: it never drops). An XPUB may drop
// it at its HWM, so it is repeated until the receiver's final count comes back, as netprof's
// publisher repeats its END until the final counters arrive.
void send_end(zmq::socket_t& socket, const Options& options, std::uint64_t sent)
{
  std::byte end[min_size] = {end_tag};
  std::memcpy(end + number_offset, &sent, sizeof sent);
  if (!options.back_channel()) {
    socket.send(zmq::const_buffer(end, sizeof end), zmq::send_flags::none);
    socket.set(zmq::sockopt::linger, -1);
    return;
  }
  socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(end_resend_interval.count()));
  zmq::message_t reply;
  const auto give_up = Clock::now() + end_time;
  while (Clock::now() < give_up) {
    socket.send(zmq::const_buffer(end, sizeof end), zmq::send_flags::dontwait);
    if ((socket.recv(reply, zmq::recv_flags::none) && is_final_count(reply)) ||
        drain_back_channel(socket))
      return;
  }
}

// The child: binds, waits for the receiver's hello, warms up, blasts, then ends.
void run_sender(const std::string& endpoint, const Options& options)
{
  bare::pin_or_throw(bare::first_cpu(options.run.cpus));
  zmq::context_t context(1);
  zmq::socket_t socket(context,
                       options.back_channel() ? zmq::socket_type::xpub : zmq::socket_type::push);
  bare::configure_like_netprof(socket, options.socket);
  socket.bind(endpoint);
  if (options.back_channel())
    bare::wait_for_hello(socket, start_timeout);
  const auto probe_period =
      options.probe_hz > 0 && options.back_channel()
          ? std::optional<std::chrono::nanoseconds>(seconds(1.0 / options.probe_hz))
          : std::nullopt;
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  const auto blast = [&](std::byte tag, std::chrono::nanoseconds length) {
    message[0] = tag;
    const auto start = Clock::now();
    const auto end = start + length;
    auto next_probe = start;
    std::uint64_t sent = 0;
    for (;; ++sent) {
      message[probe_offset] = std::byte{0};
      if (sent % sends_per_check == 0) {
        const auto now = Clock::now();
        if (now >= end)
          return sent;
        if (probe_period && now >= next_probe) {
          drain_back_channel(socket);
          message[probe_offset] = probe_mark;
          next_probe = now + *probe_period;
        }
      }
      std::memcpy(message.data() + number_offset, &sent, sizeof sent);
      // Blocking: a PUSH, or an XPUB under --nodrop, waits at its HWM; an XPUB otherwise drops.
      socket.send(zmq::const_buffer(message.data(), message.size()), zmq::send_flags::none);
    }
  };
  blast(warmup_tag, seconds(options.warmup));
  send_end(socket, options, blast(data_tag, seconds(options.seconds)));
}

struct Result {
  std::uint64_t received = 0;
  std::uint64_t sent = 0;
  std::uint64_t probes_echoed = 0;
  double seconds = 0;
};

// Answers upstream with --echo-size bytes: the tag and the number, the rest filler.
class Answerer {
public:
  explicit Answerer(const Options& options) : m_bytes(options.echo_bytes(), std::byte{0x5a}) {}

  void send(zmq::socket_t& socket, std::byte tag, const std::byte* number)
  {
    m_bytes[0] = tag;
    std::memcpy(m_bytes.data() + number_offset, number, sizeof(std::uint64_t));
    socket.send(zmq::const_buffer(m_bytes.data(), m_bytes.size()), zmq::send_flags::dontwait);
  }

private:
  std::vector<std::byte> m_bytes;
};

// The parent: connects, counts measured messages on its own clock until the first END,
// answering probes and the END on the back channel.
Result run_receiver(const std::string& endpoint, const Options& options)
{
  bare::pin_or_throw(bare::second_cpu(options.run.cpus));
  zmq::context_t context(1);
  zmq::socket_t socket(context,
                       options.back_channel() ? zmq::socket_type::xsub : zmq::socket_type::pull);
  bare::SocketSettings settings = options.socket;
  settings.nodrop = false; // an XPUB's option; netprof's subscriber sets it neither
  bare::configure_like_netprof(socket, settings);
  socket.set(zmq::sockopt::rcvtimeo,
             options.run.wait == Wait::block
                 ? static_cast<int>(start_timeout / std::chrono::milliseconds(1))
                 : -1);
  if (options.back_channel())
    bare::connect_and_say_hello(socket, endpoint, true);
  else
    socket.connect(endpoint);

  Answerer answer(options);
  Result result;
  Clock::time_point first{};
  Clock::time_point last{};
  zmq::message_t message;
  for (;;) {
    if (!bare::receive(socket, message, options.run.wait, start_timeout))
      throw RuntimeError{"timed out waiting for a message"};
    const std::byte* bytes = message.data<std::byte>();
    if (message.size() < min_size)
      throw RuntimeError{"a message that the sender did not send"};
    if (bytes[0] == data_tag) {
      last = Clock::now();
      if (result.received++ == 0)
        first = last;
    } else if (bytes[0] == end_tag) {
      std::memcpy(&result.sent, bytes + number_offset, sizeof result.sent);
      if (options.back_channel())
        answer.send(socket, final_tag, reinterpret_cast<const std::byte*>(&result.received));
      break;
    } else if (bytes[0] != warmup_tag) {
      throw RuntimeError{"a message that the sender did not send"};
    }
    if (bytes[probe_offset] == probe_mark && options.back_channel()) {
      answer.send(socket, echo_tag, bytes + number_offset);
      ++result.probes_echoed;
    }
  }
  result.seconds = std::chrono::duration<double>(last - first).count();
  return result;
}

void print_result(const Options& options, const Result& result)
{
  const double rate =
      result.seconds > 0 ? static_cast<double>(result.received) / result.seconds : 0;
  std::printf("{\"pattern\":\"%s\",\"transport\":\"%s\",\"wait\":\"%s\",\"size\":%zu,"
              "\"echo_size\":%zu,\"hwm\":%d,\"buffer\":%d,\"nodrop\":%s,\"probe_hz\":%g,"
              "\"sent\":%llu,\"received\":%llu,\"lost\":%lld,\"probes_echoed\":%llu,"
              "\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
              options.back_channel() ? "xpub-xsub" : "push-pull", options.run.ipc ? "ipc" : "tcp",
              bare::wait_name(options.run.wait), options.size, options.echo_bytes(),
              options.socket.hwm, options.socket.buffer, options.socket.nodrop ? "true" : "false",
              options.back_channel() ? options.probe_hz : 0.0,
              static_cast<unsigned long long>(result.sent),
              static_cast<unsigned long long>(result.received),
              static_cast<long long>(result.sent) - static_cast<long long>(result.received),
              static_cast<unsigned long long>(result.probes_echoed), result.seconds, rate);
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, [](const Options& options) {
    return bare::run_two_processes_over_loopback(
        {program, "receiver", "sender", end_time + std::chrono::seconds(5)}, options.run.ipc,
        [&](const std::string& endpoint) { run_sender(endpoint, options); },
        [&](const std::string& endpoint) { return run_receiver(endpoint, options); },
        [&](const Result& result) { print_result(options, result); });
  });
}
