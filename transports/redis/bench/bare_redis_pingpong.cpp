// The floor netprof's Redis ping-pong is compared against: the leanest honest round trip through
// a Redis server between two processes with hiredis alone, no netprof code. Each process has two
// connections, as netprof's endpoint has (a subscribed connection cannot PUBLISH): the pinger
// PUBLISHes to T:ping and reads T:pong, the ponger answers each ping on T:pong. Blocking hiredis
// calls, as a plain hiredis program makes them: a PUBLISH is written at once, the echo awaited on
// the subscribed connection, and PUBLISH's reply (the number of subscribers reached) read after
// it, off the round trip. With --size 116 --echo-size 68 the bytes are netprof's for `-s 64` (its
// 52-byte header + 64 B out, an echo of its header and the 16 B of cross-clock stamps back).
//
//   bare_redis_pingpong --server HOST:PORT [--size BYTES] [--echo-size BYTES] [--iterations N]
//                       [--warmup N] [--cpu PINGER,PONGER]
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (server absent,
// timeout, lost or corrupt echo), 2 bad command line.

#include "bare_pingpong.hpp"
#include "bare_redis_connection.hpp"

#include <hiredis/hiredis.h>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bare::redis::Failure;
using bare::redis::Reply;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_redis_pingpong";
constexpr const char* usage =
    "usage: bare_redis_pingpong --server HOST:PORT [--size BYTES (=116)] [--echo-size BYTES "
    "(=68)]\n"
    "       [--iterations N (=20000)] [--warmup N (=2000)] [--cpu PINGER,PONGER (none: "
    "unpinned)]\n";
using Options = bare::redis::Options<bare::SizedRoundTrips>;

// One process's two connections.
struct Client {
  redisContext* subscribed = nullptr;
  redisContext* publishing = nullptr;

  ~Client()
  {
    if (subscribed != nullptr)
      redisFree(subscribed);
    if (publishing != nullptr)
      redisFree(publishing);
  }

  static Reply reply_of(redisContext* context)
  {
    void* reply = nullptr;
    if (redisGetReply(context, &reply) != REDIS_OK || reply == nullptr)
      throw Failure{std::string("no reply: ") + context->errstr};
    return Reply(static_cast<redisReply*>(reply));
  }

  Client(const Options& options, const std::string& channel)
      : subscribed(bare::redis::connect(options.server)),
        publishing(bare::redis::connect(options.server))
  {
    bare::redis::subscribe(subscribed, channel);
  }

  // Writes a PUBLISH at once; its reply is read by published().
  void publish(const std::string& channel, const std::vector<std::byte>& bytes)
  {
    const char* argv[3] = {"PUBLISH", channel.c_str(), reinterpret_cast<const char*>(bytes.data())};
    const std::size_t lengths[3] = {7, channel.size(), bytes.size()};
    if (redisAppendCommandArgv(publishing, 3, argv, lengths) != REDIS_OK)
      throw Failure{"redisAppendCommandArgv failed"};
    int done = 0;
    while (done == 0)
      if (redisBufferWrite(publishing, &done) != REDIS_OK)
        throw Failure{std::string("write: ") + publishing->errstr};
  }

  void published()
  {
    const Reply reply = reply_of(publishing);
    if (reply->type != REDIS_REPLY_INTEGER)
      throw Failure{"PUBLISH failed"};
  }

  // The payload of the next message on the subscribed connection.
  Reply message()
  {
    Reply push = reply_of(subscribed);
    if (push->type != REDIS_REPLY_ARRAY || push->elements != 3 ||
        push->element[2]->type != REDIS_REPLY_STRING)
      throw Failure{"not a message"};
    return push;
  }
};

std::string_view payload_of(const Reply& push)
{
  return {push->element[2]->str, push->element[2]->len};
}

// The child: answers each ping with an echo carrying its sequence number.
void run_ponger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  Client client(options, topic + ":ping");
  const std::string pong = topic + ":pong";
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  for (std::uint64_t i = 0; i < options.warmup + options.iterations; ++i) {
    const Reply ping = client.message();
    std::memcpy(echo.data(), payload_of(ping).data(), sizeof(std::uint64_t));
    client.publish(pong, echo);
    client.published();
  }
}

std::vector<std::int64_t> run_pinger(const Options& options, const std::string& topic)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  Client client(options, topic + ":pong");
  const std::string ping_channel = topic + ":ping";
  bare::redis::wait_for_subscriber(client.publishing, ping_channel, "the ponger never subscribed");
  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  return bare::time_round_trips(options, ping, [&] {
    client.publish(ping_channel, ping);
    const Reply echo = client.message();
    const auto received_at = Clock::now();
    client.published();
    const std::string_view payload = payload_of(echo);
    return bare::Echo{received_at, payload.size(), bare::sequence_in(payload.data())};
  });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(
      argc, argv, program, usage, bare::redis::options_parser(bare::take_sized_round_trip_option),
      [](const Options& options) {
        const std::string topic = "bare:" + std::to_string(getpid());
        return bare::run_pingpong(
            program, [&] { run_ponger(options, topic); },
            [&] { return run_pinger(options, topic); },
            [&] {
              std::printf("{\"transport\":\"redis\",\"size\":%zu,\"echo_size\":%zu,", options.size,
                          options.echo_size);
            });
      });
}
