// The floor netprof's MQTT stream is compared against: one publisher and one subscriber process
// through an MQTT broker with libmosquitto alone, no netprof code, doing what netprof's stream
// does: the publisher publishes --size-byte messages to T/data as fast as libmosquitto writes them
// (one write each, as netprof's), marks one --probe-hz times a second as a probe, which the
// subscriber answers with an --echo-size-byte echo on T/echo (as netprof's subscriber echoes its
// probes), and reads what comes back (echoes, QoS 1 acknowledgements) every 64 messages, and
// whenever its window of unacknowledged messages is full. Both drive their client on their own
// thread as netprof's endpoint does (bare_mqtt_client.hpp). With --size 180 --echo-size 68 the
// bytes are netprof's for `-s 128` (its 52-byte header + 128 B, an echo of its header and its
// 16 B of cross-clock stamps), and the topics as long as netprof's --local-pair ones; --window
// defaults to netprof's for its default -q (1,000,000 B of messages).
// transports/mqtt/bench/bench_mqtt.sh prints netprof's ratio to it.
//
//   bare_mqtt_stream --broker HOST:PORT [--size BYTES] [--echo-size BYTES] [--seconds S]
//                    [--warmup S] [--qos 0|1] [--window N] [--probe-hz N] [--cpu PUB,SUB]
//
// --warmup seconds of messages go first, unmeasured, then --seconds of measured ones, then an
// end message carrying how many measured messages were sent, which the subscriber confirms (as
// netprof's end of test is confirmed) before the publisher leaves. The subscriber counts the
// measured ones on its own clock, from the first to the last, N - 1 intervals over that time, as
// netprof's subscriber does, and prints one JSON line. Exit status: 0 measured, 1 runtime error
// (broker absent, timeout), 2 bad command line.

#include "bare_mqtt_client.hpp"
#include "bare_two_processes.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using bare::parse_number;
using bare::mqtt::Clock;
using bare::mqtt::Failure;

constexpr const char* program = "bare_mqtt_stream";
constexpr const char* usage =
    "usage: bare_mqtt_stream --broker HOST:PORT [--size BYTES (=180)] [--echo-size BYTES (=68)]\n"
    "       [--seconds S (=2)] [--warmup S (=0.5)] [--qos 0|1 (=0)]\n"
    "       [--window N (=1000000 / size)] [--probe-hz N (=1000, 0: none)]\n"
    "       [--cpu PUBLISHER,SUBSCRIBER (none: unpinned)]\n";
constexpr std::size_t count_offset = 8;
static_assert(bare::TimedStream::min_size >= count_offset + sizeof(std::uint64_t),
              "an end's count must fit");
// netprof's default -q, which sizes its QoS 1 window.
constexpr std::size_t netprof_queue_bytes = 1'000'000;
// Byte 0 says what a message is, byte 1 whether it is a probe; an end carries at count_offset
// the number of measured messages sent.
constexpr std::byte warmup_tag{'W'};
constexpr std::byte data_tag{'D'};
constexpr std::byte end_tag{'E'};
constexpr std::byte hello_tag{'H'};
constexpr std::byte done_tag{'F'};
constexpr std::size_t probe_offset = 1;
// The publisher reads what came back once per this many sends (as netprof's does while no
// probe awaits its echo), at most this many packets a look (netprof's receive(): 4 x 32).
constexpr std::uint64_t sends_per_look = 64;
constexpr int packets_per_look = 128;
constexpr auto silence_limit = std::chrono::seconds(10);
// How long the publisher waits for the subscriber to have drained the broker's backlog.
constexpr auto drain_limit = std::chrono::seconds(60);

struct Options : bare::TimedStream, bare::mqtt::BrokerOptions {
  std::optional<int> window; // none: netprof's for its default -q

  int window_messages() const
  {
    return window.value_or(static_cast<int>(
        std::clamp<std::size_t>(netprof_queue_bytes / size, std::size_t{16}, std::size_t{65535})));
  }
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (bare::take_timed_stream_option(flag, value, options))
    return true;
  if (flag != "--window")
    return false;
  options.window = parse_number<int>(value, 1, 65535, "--window must be 1 to 65535");
  return true;
}

Options parse_options(int argc, char** argv)
{
  return bare::mqtt::parse_options<Options>(argc, argv, take_option);
}

Clock::duration seconds(double value)
{
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

struct Counts {
  std::uint64_t sent = 0; // what the end says
  std::uint64_t received = 0;
  Clock::time_point first{};
  Clock::time_point last{};
  bool started = false; // anything of the publisher's came
  bool ended = false;
};

// The subscriber (the parent): counts, echoes probes from inside the callback (libmosquitto
// queues them; step() writes them once the read returns, as netprof's endpoint does), until
// the end.
Counts run_subscriber(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  Counts counts;
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  const std::string echo_topic = topic + "/echo";
  bare::mqtt::Client* self = nullptr;
  bare::mqtt::Client client(options.broker, [&](const mosquitto_message& message) {
    const auto* bytes = static_cast<const std::byte*>(message.payload);
    counts.started = true;
    if (bytes[0] == end_tag) {
      std::memcpy(&counts.sent, bytes + count_offset, sizeof counts.sent);
      counts.ended = true;
      return;
    }
    if (bytes[probe_offset] != std::byte{0})
      self->publish(echo_topic, echo.data(), echo.size(), options.qos);
    if (bytes[0] != data_tag)
      return;
    counts.last = Clock::now();
    if (counts.received++ == 0)
      counts.first = counts.last;
  });
  self = &client;
  client.subscribe(topic + "/data", options.qos);
  // Hello until the publisher, which may subscribe later, starts sending.
  const std::byte hello[1] = {hello_tag};
  for (auto give_up = Clock::now() + silence_limit; !counts.started;) {
    if (Clock::now() >= give_up)
      throw Failure{"the publisher never started"};
    client.publish(echo_topic, hello, sizeof hello, options.qos);
    client.step(std::chrono::milliseconds(50));
  }
  for (auto heard = Clock::now(); !counts.ended;) {
    if (client.step(std::chrono::milliseconds(100)))
      heard = Clock::now();
    else if (Clock::now() - heard >= silence_limit)
      throw Failure{"nothing came for 10 s, and no end"};
  }
  const std::byte done[1] = {done_tag};
  client.publish(echo_topic, done, sizeof done, options.qos);
  client.wait_until_delivered();
  return counts;
}

// The publisher's side: its client, what it sent, and its pace.
class Publisher {
public:
  Publisher(const Options& options, const std::string& topic)
      : m_options(options), m_data_topic(topic + "/data"), m_message(options.size, std::byte{0x5a}),
        m_client(options.broker, [this](const mosquitto_message& message) {
          if (message.payloadlen != 1)
            return; // an echo
          const std::byte said = *static_cast<const std::byte*>(message.payload);
          m_hello = m_hello || said == hello_tag;
          m_done = m_done || said == done_tag;
        })
  {
    m_client.subscribe(topic + "/echo", options.qos);
    if (options.qos > 0)
      m_client.set_send_maximum(options.window_messages());
    const auto give_up = Clock::now() + silence_limit;
    while (!m_hello && Clock::now() < give_up)
      m_client.step(std::chrono::milliseconds(100));
    if (!m_hello)
      throw Failure{"the subscriber never said hello"};
  }

  // Sends `tag` messages for `length`; how many.
  std::uint64_t blast(std::byte tag, Clock::duration length)
  {
    m_message[0] = tag;
    const bool probing = m_options.probe_hz > 0;
    const auto probe_period = probing ? seconds(1.0 / m_options.probe_hz) : Clock::duration{};
    const auto start = Clock::now();
    auto next_probe = start;
    std::uint64_t sent = 0;
    for (auto now = start; now - start < length; now = Clock::now(), ++sent) {
      const bool probe = probing && now >= next_probe;
      if (probe)
        next_probe = std::max(next_probe + probe_period, now); // no burst after a stall
      m_message[probe_offset] = probe ? std::byte{1} : std::byte{0};
      send(m_message);
      if ((sent + 1) % sends_per_look == 0)
        look();
    }
    return sent;
  }

  // The end, carrying `measured`; returns once the subscriber said it had it. Leaving earlier
  // would lose messages: closing a socket with echoes unread resets the connection, and the
  // broker drops what it had not read yet.
  void finish(std::uint64_t measured)
  {
    m_message[0] = end_tag;
    m_message[probe_offset] = std::byte{0};
    std::memcpy(m_message.data() + count_offset, &measured, sizeof measured);
    send(m_message);
    const auto give_up = Clock::now() + drain_limit;
    while (!m_done) {
      if (Clock::now() >= give_up)
        throw Failure{"the subscriber did not confirm the end within 60 s"};
      m_client.step(std::chrono::milliseconds(100));
    }
  }

private:
  // As netprof's publisher at QoS 1: a full window waits for acknowledgements first.
  void send(const std::vector<std::byte>& message)
  {
    if (m_options.qos > 0) {
      const auto window = static_cast<std::uint64_t>(m_options.window_messages());
      const auto give_up = Clock::now() + silence_limit;
      while (m_client.unacknowledged() >= window) {
        if (Clock::now() >= give_up)
          throw Failure{"the window stayed full for 10 s"};
        m_client.step(std::chrono::milliseconds(1));
      }
    }
    m_client.publish(m_data_topic, message.data(), message.size(), m_options.qos);
  }

  // What came back: echoes, acknowledgements, without waiting.
  void look()
  {
    for (int packet = 0; packet < packets_per_look && m_client.step(std::chrono::milliseconds(0));
         ++packet) {
    }
  }

  const Options& m_options;
  std::string m_data_topic;
  std::vector<std::byte> m_message;
  bool m_hello = false;
  bool m_done = false;
  bare::mqtt::Client m_client;
};

// The child: warm-up, measured messages, the end.
void run_publisher(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  Publisher publisher(options, topic);
  if (options.warmup > 0)
    publisher.blast(warmup_tag, seconds(options.warmup));
  publisher.finish(publisher.blast(data_tag, seconds(options.seconds)));
}

void print(const Options& options, const Counts& counts)
{
  const double measured = std::chrono::duration<double>(counts.last - counts.first).count();
  std::printf("{\"transport\":\"mqtt\",\"qos\":%d,\"size\":%zu,\"echo_size\":%zu,\"window\":%d,"
              "\"probe_hz\":%.0f,\"sent\":%llu,\"received\":%llu,\"seconds\":%.6f,"
              "\"messages_per_second\":%.1f}\n",
              options.qos, options.size, options.echo_size, options.window_messages(),
              options.probe_hz, static_cast<unsigned long long>(counts.sent),
              static_cast<unsigned long long>(counts.received), measured,
              counts.received > 1 && measured > 0
                  ? static_cast<double>(counts.received - 1) / measured
                  : 0.0);
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, [](const Options& options) {
    const std::string topic = bare::pair_name_prefix('/');
    return bare::run_two_processes(
        {program, "subscriber", "publisher", std::chrono::seconds(10)},
        [&] { run_publisher(options, topic); }, [&] { return run_subscriber(options, topic); },
        [&](const Counts& counts) { print(options, counts); });
  });
}
