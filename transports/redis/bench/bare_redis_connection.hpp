#pragma once

// What the bare Redis baselines (bare_redis_pingpong, bare_redis_stream) share, still no netprof
// code: --server HOST:PORT, a connection made the way netprof's endpoint makes its two, its
// subscription, the wait for the other process's, and hiredis's replies owned.

#include "bare_options.hpp"

#include <hiredis/hiredis.h>

#include <sys/time.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace bare::redis {

constexpr timeval io_timeout{10, 0};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Server {
  std::string host;
  int port = 0;
};

// Takes --server HOST:PORT into `server`; false for any other flag.
inline bool take_server_option(std::string_view flag, std::string_view value, Server& server)
{
  if (flag != "--server")
    return false;
  const std::size_t colon = value.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    throw UsageError{"--server takes HOST:PORT"};
  server.host = std::string(value.substr(0, colon));
  server.port = parse_number<int>(value.substr(colon + 1), 1, 65535,
                                  "--server takes HOST:PORT, a port of 1 to 65535");
  return true;
}

// A Redis baseline's options: what it sends (`Runs`: SizedRoundTrips, TimedStream) and its server.
template <typename Runs> struct Options : Runs {
  Server server;
};

// run_main's parse of Options<Runs>: --server HOST:PORT, which is required, and the flags
// take_runs takes.
template <typename Runs>
auto options_parser(bool (*take_runs)(std::string_view, std::string_view, Runs&))
{
  return [take_runs](int argc, char** argv) {
    auto options = parse_command_line<Options<Runs>>(
        argc, argv, [&](std::string_view flag, std::string_view value, Options<Runs>& taken) {
          return take_server_option(flag, value, taken.server) || take_runs(flag, value, taken);
        });
    if (options.server.host.empty())
      throw UsageError{"--server HOST:PORT is required (bench_redis.sh starts one)"};
    return options;
  };
}

struct ReplyFree {
  void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

// A blocking connection, with 10 s timeouts on its reads and writes.
inline redisContext* connect(const Server& server)
{
  redisContext* context = redisConnectWithTimeout(server.host.c_str(), server.port, io_timeout);
  if (context == nullptr)
    throw Failure{"cannot connect: out of memory"};
  if (context->err != 0) {
    const std::string why = context->errstr;
    redisFree(context);
    throw Failure{"cannot connect: " + why};
  }
  redisSetTimeout(context, io_timeout);
  return context;
}

// Subscribes the blocking connection `context` to `channel`, once the server has confirmed it.
inline void subscribe(redisContext* context, const std::string& channel)
{
  const Reply confirmed(
      static_cast<redisReply*>(redisCommand(context, "SUBSCRIBE %s", channel.c_str())));
  if (!confirmed || confirmed->type != REDIS_REPLY_ARRAY)
    throw Failure{"the server did not confirm the subscription"};
}

// Until `channel` has a subscriber (PUBSUB NUMSUB, asked on the blocking connection `context`),
// a message would reach nobody. Waits at most 10 s, then throws `never_came`.
inline void wait_for_subscriber(redisContext* context, const std::string& channel,
                                const char* never_came)
{
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const Reply count(
        static_cast<redisReply*>(redisCommand(context, "PUBSUB NUMSUB %s", channel.c_str())));
    if (count && count->type == REDIS_REPLY_ARRAY && count->elements == 2 &&
        count->element[1]->type == REDIS_REPLY_INTEGER && count->element[1]->integer > 0)
      return;
    if (std::chrono::steady_clock::now() >= give_up)
      throw Failure{never_came};
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

} // namespace bare::redis
