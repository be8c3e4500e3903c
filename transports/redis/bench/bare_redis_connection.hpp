#pragma once

// What the bare Redis baselines (bare_redis_pingpong, bare_redis_stream) share, still no netprof
// code: --server HOST:PORT, a connection made the way netprof's endpoint makes its two, and
// hiredis's replies owned.

#include "bare_options.hpp"

#include <hiredis/hiredis.h>

#include <sys/time.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

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

} // namespace bare::redis
