// The floor netprof's MQTT ping-pong is compared against: the leanest honest round trip through an
// MQTT broker between two processes with libmosquitto alone, no netprof code. Each process drives
// its client on its own thread as netprof's endpoint does (ppoll on the socket, then
// mosquitto_loop_read; no mosquitto_loop_start thread), the pinger publishing to T/ping, the
// ponger answering on T/pong. With --size 116 --echo-size 68 the bytes are netprof's for `-s 64`
// (its 52-byte header + 64 B out, an echo of its header and the 16 B of cross-clock stamps back).
//
//   bare_mqtt_pingpong --broker HOST:PORT [--size BYTES] [--echo-size BYTES] [--iterations N]
//                      [--warmup N] [--qos 0|1] [--cpu PINGER,PONGER]
//
// libmosquitto is initialised after the fork, in each process. Prints one JSON line on stdout.
// Exit status: 0 measured, 1 runtime error (broker absent, timeout, lost or corrupt echo), 2 bad
// command line.

#include "bare_mqtt_client.hpp"
#include "bare_pingpong.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using bare::mqtt::Clock;
using bare::mqtt::Failure;

constexpr const char* program = "bare_mqtt_pingpong";
constexpr const char* usage =
    "usage: bare_mqtt_pingpong --broker HOST:PORT [--size BYTES (=116)] [--echo-size BYTES (=68)]\n"
    "       [--iterations N (=20000)] [--warmup N (=2000)] [--qos 0|1 (=0)]\n"
    "       [--cpu PINGER,PONGER (none: unpinned)]\n";
constexpr auto receive_timeout = std::chrono::seconds(10);
struct Options : bare::SizedRoundTrips, bare::mqtt::BrokerOptions {};

Options parse_options(int argc, char** argv)
{
  return bare::mqtt::parse_options<Options>(argc, argv, bare::take_sized_round_trip_option);
}

// One client and the last message it read, kept (copied) for the loop to look at.
struct Peer {
  std::vector<std::byte> last;
  bool got = false;
  bare::mqtt::Client client;

  Peer(const Options& options, const std::string& subscribe)
      : client(options.broker, [this](const mosquitto_message& message) {
          const auto* bytes = static_cast<const std::byte*>(message.payload);
          last.assign(bytes, bytes + message.payloadlen);
          got = true;
        })
  {
    client.subscribe(subscribe, options.qos);
  }

  // Reads until a message came, at most receive_timeout.
  void receive()
  {
    got = false;
    const auto give_up = Clock::now() + receive_timeout;
    while (!got) {
      if (Clock::now() >= give_up)
        throw Failure{"no message within 10 s"};
      client.step(std::chrono::milliseconds(100));
    }
  }

  void publish(const std::string& topic, const std::vector<std::byte>& bytes, int qos)
  {
    client.publish(topic, bytes.data(), bytes.size(), qos);
  }
};

// The child: says hello on T/pong until the first ping comes, then answers each ping with an
// echo carrying its sequence number, published outside the callback (written at once).
void run_ponger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  Peer peer(options, topic + "/ping");
  const std::vector<std::byte> hello(1, std::byte{0x01});
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  const auto give_up = Clock::now() + receive_timeout;
  while (!peer.got) {
    if (Clock::now() >= give_up)
      throw Failure{"the pinger never answered the hello"};
    peer.publish(topic + "/pong", hello, options.qos);
    peer.client.step(std::chrono::milliseconds(50));
  }
  for (std::uint64_t i = 0; i < options.warmup + options.iterations; ++i) {
    if (i > 0)
      peer.receive();
    std::memcpy(echo.data(), peer.last.data(), sizeof(std::uint64_t));
    peer.publish(topic + "/pong", echo, options.qos);
  }
}

std::vector<std::int64_t> run_pinger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  Peer peer(options, topic + "/pong");
  peer.receive(); // the hello
  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  return bare::time_round_trips(options, ping, [&] {
    peer.publish(topic + "/ping", ping, options.qos);
    do
      peer.receive();
    while (peer.last.size() == 1); // a late hello
    const auto received_at = Clock::now();
    return bare::Echo{received_at, peer.last.size(), bare::sequence_in(peer.last.data())};
  });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, [](const Options& options) {
    const std::string topic = "bare/" + std::to_string(getpid());
    return bare::run_pingpong(
        program, [&] { run_ponger(options, topic); }, [&] { return run_pinger(options, topic); },
        [&] {
          std::printf("{\"transport\":\"mqtt\",\"qos\":%d,\"size\":%zu,\"echo_size\":%zu,",
                      options.qos, options.size, options.echo_size);
        });
  });
}
