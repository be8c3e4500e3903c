// The floor netprof's Redis stream is compared against: one publisher and one subscriber process
// through a Redis server with hiredis alone, no netprof code, doing what netprof's stream does:
// the publisher PUBLISHes --size-byte messages to P:data as fast as the socket takes them (one
// write each, as netprof's endpoint writes each at once), marks one --probe-hz times a second as
// a probe, which the subscriber answers with an --echo-size-byte echo PUBLISHed to P:echo (as
// netprof's subscriber echoes its probes), and reads what came back (PUBLISH's replies, echoes)
// every 64 messages without waiting. Each process has two connections, as netprof's endpoint has
// (a subscribed connection cannot PUBLISH), non-blocking after setup and driven as netprof drives
// them: poll on both, redisBufferRead, each parsed push taken from hiredis's reader. With --size
// 180 --echo-size 68 the bytes are netprof's for `-s 128` (its 52-byte header + 128 B, an echo of
// its header and its 16 B of cross-clock stamps); the channels are as long as netprof's
// --local-pair ones. transports/redis/bench/bench_redis.sh prints netprof's ratio to it.
//
//   bare_redis_stream --server HOST:PORT [--size BYTES] [--echo-size BYTES] [--seconds S]
//                     [--warmup S] [--probe-hz N] [--cpu PUBLISHER,SUBSCRIBER]
//
// --warmup seconds of messages go first, unmeasured, then --seconds of measured ones, then an
// end message carrying how many measured messages were sent, which the subscriber confirms (as
// netprof's end of test is confirmed) before the publisher leaves. The subscriber counts the
// measured ones on its own clock, from the first to the last, N - 1 intervals over that time, as
// netprof's subscriber does, and prints one JSON line. Exit status: 0 measured, 1 runtime error
// (server absent, timeout), 2 bad command line.

#include "bare_broker_stream.hpp"
#include "bare_redis_connection.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bare::Clock;
using bare::broker_stream::Counts;
using bare::broker_stream::done_tag;
using bare::broker_stream::silence_limit;
using bare::redis::Failure;
using bare::redis::Reply;

constexpr const char* program = "bare_redis_stream";
constexpr const char* usage =
    "usage: bare_redis_stream --server HOST:PORT [--size BYTES (=180)] [--echo-size BYTES (=68)]\n"
    "       [--seconds S (=2)] [--warmup S (=0.5)] [--probe-hz N (=1000, 0: none)]\n"
    "       [--cpu PUBLISHER,SUBSCRIBER (none: unpinned)]\n";

using Options = bare::redis::Options<bare::TimedStream>;

// One process's two connections: set up blocking, then non-blocking, as netprof's endpoint.
class Connections {
public:
  Connections(const bare::redis::Server& server, const std::string& channel)
      : m_subscribed(bare::redis::connect(server)), m_publishing(bare::redis::connect(server))
  {
    bare::redis::subscribe(m_subscribed, channel);
  }

  ~Connections()
  {
    redisFree(m_subscribed);
    redisFree(m_publishing);
  }

  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  void wait_for_subscriber(const std::string& channel)
  {
    bare::redis::wait_for_subscriber(m_publishing, channel, "the subscriber never subscribed");
  }

  void make_non_blocking()
  {
    for (redisContext* context : {m_subscribed, m_publishing}) {
      const int flags = fcntl(context->fd, F_GETFL);
      if (flags < 0 || fcntl(context->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw Failure{std::string("fcntl: ") + std::strerror(errno)};
      context->flags &= ~REDIS_BLOCK; // hiredis reads EAGAIN as "try later" only then
    }
  }

  // A PUBLISH, written at once and whole (waiting for room, as netprof's send() does); its
  // reply is read by a later step().
  void publish(const std::string& channel, const char* bytes, std::size_t size)
  {
    const char* argv[3] = {"PUBLISH", channel.c_str(), bytes};
    const std::size_t lengths[3] = {7, channel.size(), size};
    if (redisAppendCommandArgv(m_publishing, 3, argv, lengths) != REDIS_OK)
      throw Failure{"redisAppendCommandArgv failed"};
    ++m_published;
    const auto give_up = Clock::now() + silence_limit;
    for (int done = 0; done == 0;) {
      if (redisBufferWrite(m_publishing, &done) != REDIS_OK)
        throw Failure{std::string("write: ") + m_publishing->errstr};
      if (done != 0)
        return;
      if (Clock::now() >= give_up)
        throw Failure{"the server took nothing for 10 s"};
      pollfd room{m_publishing->fd, POLLOUT, 0};
      poll(&room, 1, 100);
    }
  }

  // Waits up to `wait` for either socket, reads PUBLISH's replies and hands each message's
  // payload on the subscribed connection to on_payload; false when nothing came.
  template <typename OnPayload> bool step(std::chrono::milliseconds wait, OnPayload&& on_payload)
  {
    pollfd watched[2] = {{m_subscribed->fd, POLLIN, 0}, {m_publishing->fd, POLLIN, 0}};
    const int ready = poll(watched, 2, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR)
      throw Failure{std::string("poll: ") + std::strerror(errno)};
    if (ready <= 0)
      return false;
    if (watched[1].revents != 0)
      take_replies(m_publishing, [this](const redisReply&) { ++m_answered; });
    if (watched[0].revents != 0)
      take_replies(m_subscribed, [&](const redisReply& push) {
        if (push.type == REDIS_REPLY_ARRAY && push.elements == 3 &&
            push.element[2]->type == REDIS_REPLY_STRING)
          on_payload(std::string_view(push.element[2]->str, push.element[2]->len));
      });
    return true;
  }

  // PUBLISHes whose reply has not been read: a socket closed with a reply unread is reset, and
  // the server drops what it had not read yet.
  std::uint64_t unanswered() const noexcept { return m_published - m_answered; }

private:
  template <typename Take> static void take_replies(redisContext* context, Take&& take)
  {
    if (redisBufferRead(context) != REDIS_OK)
      throw Failure{std::string("read: ") + context->errstr};
    for (;;) {
      void* parsed = nullptr;
      if (redisGetReplyFromReader(context, &parsed) != REDIS_OK)
        throw Failure{std::string("parse: ") + context->errstr};
      if (parsed == nullptr)
        return;
      const Reply reply(static_cast<redisReply*>(parsed));
      take(*reply);
    }
  }

  redisContext* m_subscribed;
  redisContext* m_publishing;
  std::uint64_t m_published = 0;
  std::uint64_t m_answered = 0;
};

// The subscriber (the parent): counts, echoes probes at once, until the end, which it confirms.
Counts run_subscriber(const Options& options, const std::string& prefix)
{
  bare::pin_to_cpu(bare::second_cpu(options.cpus));
  Connections connections(options.server, prefix + ":data");
  connections.make_non_blocking();
  const std::string echo_channel = prefix + ":echo";
  const std::vector<char> echo(options.echo_size, 0x5a);
  Counts counts;
  const auto take = [&](std::string_view message) {
    if (message.size() < bare::TimedStream::min_size)
      throw Failure{"a message shorter than the sender sends"};
    counts.take(message.data(),
                [&] { connections.publish(echo_channel, echo.data(), echo.size()); });
  };
  bare::broker_stream::receive_until_end(
      counts, [&](std::chrono::milliseconds wait) { return connections.step(wait, take); });
  const char done[1] = {done_tag};
  connections.publish(echo_channel, done, sizeof done);
  const auto give_up = Clock::now() + silence_limit;
  while (connections.unanswered() > 0 && Clock::now() < give_up)
    connections.step(std::chrono::milliseconds(100), take);
  return counts;
}

// The publisher's connections, as bare::broker_stream::publish drives them.
class Publisher {
public:
  Publisher(const Options& options, const std::string& prefix)
      : m_data_channel(prefix + ":data"), m_connections(options.server, prefix + ":echo")
  {
    m_connections.wait_for_subscriber(m_data_channel);
    m_connections.make_non_blocking();
  }

  void send(const std::vector<char>& message)
  {
    m_connections.publish(m_data_channel, message.data(), message.size());
  }

  void look() { step(std::chrono::milliseconds(0)); }

  void step(std::chrono::milliseconds wait)
  {
    m_connections.step(wait, [this](std::string_view said) {
      m_done = m_done || said == std::string_view(&done_tag, 1);
    });
  }

  bool confirmed() const { return m_done; }

private:
  std::string m_data_channel;
  bool m_done = false;
  Connections m_connections;
};

// The child: leaves once the subscriber confirmed the end.
void run_publisher(const Options& options, const std::string& prefix)
{
  bare::pin_to_cpu(bare::first_cpu(options.cpus));
  Publisher publisher(options, prefix);
  bare::broker_stream::publish(options, publisher);
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(
      argc, argv, program, usage, bare::redis::options_parser(bare::take_timed_stream_option),
      [](const Options& options) {
        const std::string prefix = bare::pair_name_prefix(':');
        return bare::broker_stream::run(
            program, [&] { run_publisher(options, prefix); },
            [&] { return run_subscriber(options, prefix); },
            [&] {
              std::printf(
                  "{\"transport\":\"redis\",\"size\":%zu,\"echo_size\":%zu,\"probe_hz\":%.0f,",
                  options.size, options.echo_size, options.probe_hz);
            });
      });
}
