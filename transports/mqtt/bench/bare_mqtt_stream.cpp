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

#include "bare_broker_stream.hpp"
#include "bare_mqtt_client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using bare::parse_number;
using bare::broker_stream::Counts;
using bare::broker_stream::done_tag;
using bare::broker_stream::silence_limit;
using bare::mqtt::Clock;
using bare::mqtt::Failure;

constexpr const char* program = "bare_mqtt_stream";
constexpr const char* usage =
    "usage: bare_mqtt_stream --broker HOST:PORT [--size BYTES (=180)] [--echo-size BYTES (=68)]\n"
    "       [--seconds S (=2)] [--warmup S (=0.5)] [--qos 0|1 (=0)]\n"
    "       [--window N (=1000000 / size)] [--probe-hz N (=1000, 0: none)]\n"
    "       [--cpu PUBLISHER,SUBSCRIBER (none: unpinned)]\n";
// netprof's default -q, which sizes its QoS 1 window.
constexpr std::size_t netprof_queue_bytes = 1'000'000;
// The subscriber's first word, one byte, beside bare_broker_stream.hpp's tags.
constexpr char hello_tag = 'H';
// The publisher reads at most this many packets a look (netprof's receive(): 4 x 32).
constexpr int packets_per_look = 128;

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

// The subscriber (the parent): counts, echoes probes from inside the callback (libmosquitto
// queues them; step() writes them once the read returns, as netprof's endpoint does), until
// the end.
Counts run_subscriber(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  Counts counts;
  bool started = false; // anything of the publisher's came
  const std::vector<char> echo(options.echo_size, 0x5a);
  const std::string echo_topic = topic + "/echo";
  bare::mqtt::Client* self = nullptr;
  bare::mqtt::Client client(options.broker, [&](const mosquitto_message& message) {
    started = true;
    counts.take(static_cast<const char*>(message.payload),
                [&] { self->publish(echo_topic, echo.data(), echo.size(), options.qos); });
  });
  self = &client;
  client.subscribe(topic + "/data", options.qos);
  // Hello until the publisher, which may subscribe later, starts sending.
  const char hello[1] = {hello_tag};
  for (auto give_up = Clock::now() + silence_limit; !started;) {
    if (Clock::now() >= give_up)
      throw Failure{"the publisher never started"};
    client.publish(echo_topic, hello, sizeof hello, options.qos);
    client.step(std::chrono::milliseconds(50));
  }
  bare::broker_stream::receive_until_end(
      counts, [&](std::chrono::milliseconds wait) { return client.step(wait); });
  const char done[1] = {done_tag};
  client.publish(echo_topic, done, sizeof done, options.qos);
  client.wait_until_delivered();
  return counts;
}

// The publisher's client, as bare::broker_stream::publish drives it.
class Publisher {
public:
  Publisher(const Options& options, const std::string& topic)
      : m_options(options), m_data_topic(topic + "/data"),
        m_client(options.broker, [this](const mosquitto_message& message) {
          if (message.payloadlen != 1)
            return; // an echo
          const char said = *static_cast<const char*>(message.payload);
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

  // As netprof's publisher at QoS 1: a full window waits for acknowledgements first.
  void send(const std::vector<char>& message)
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

  void step(std::chrono::milliseconds wait) { m_client.step(wait); }
  bool confirmed() const { return m_done; }

private:
  const Options& m_options;
  std::string m_data_topic;
  bool m_hello = false;
  bool m_done = false;
  bare::mqtt::Client m_client;
};

// The child.
void run_publisher(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  Publisher publisher(options, topic);
  bare::broker_stream::publish(options, publisher);
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, [](const Options& options) {
    const std::string topic = bare::pair_name_prefix('/');
    return bare::broker_stream::run(
        program, [&] { run_publisher(options, topic); },
        [&] { return run_subscriber(options, topic); },
        [&] {
          std::printf("{\"transport\":\"mqtt\",\"qos\":%d,\"size\":%zu,\"echo_size\":%zu,"
                      "\"window\":%d,\"probe_hz\":%.0f,",
                      options.qos, options.size, options.echo_size, options.window_messages(),
                      options.probe_hz);
        });
  });
}
