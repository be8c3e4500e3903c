#include "redis_endpoint.hpp"

#include "common/broker_client_id.hpp"

#include <netprof/errors.hpp>

#include <hiredis/hiredis.h>

#include <fcntl.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <memory>

// The endpoint's setup and teardown: both connections, the server's version, the subscription,
// and the notes that say what was set up. The per-message hooks are in redis_endpoint.cpp.

namespace netprof::redis_parts {

namespace {

struct ReplyFree {
  void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
using ReplyPointer = std::unique_ptr<redisReply, ReplyFree>;

timeval timeval_of(std::chrono::milliseconds duration)
{
  timeval value{};
  value.tv_sec = static_cast<time_t>(duration.count() / 1000);
  value.tv_usec = static_cast<suseconds_t>((duration.count() % 1000) * 1000);
  return value;
}

} // namespace

std::string_view text_of(const redisReply& reply) noexcept
{
  return reply.str != nullptr ? std::string_view(reply.str, reply.len) : std::string_view();
}

std::string redis_version_of(const std::string& info)
{
  constexpr std::string_view key = "redis_version:";
  std::size_t at = 0;
  while (at < info.size()) {
    const std::size_t end = std::min(info.find('\n', at), info.size());
    std::string_view line(info.data() + at, end - at);
    if (line.starts_with(key)) {
      line.remove_prefix(key.size());
      while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
        line.remove_suffix(1);
      return std::string(line);
    }
    at = end + 1;
  }
  return {};
}

RedisEndpoint::RedisEndpoint(const EndpointSettings& settings) : m_settings(settings)
{
  const bool bracketed = settings.host.find(':') != std::string::npos;
  m_server =
      (bracketed ? "[" + settings.host + "]" : settings.host) + ":" + std::to_string(settings.port);
  m_client_id = transport_common::broker_client_id();
  m_echo_prefix = settings.prefix + ":echo:";
  const std::string data_channel = settings.prefix + ":data";
  const bool publisher = settings.role == Role::publisher;
  m_publish_channel = publisher ? data_channel : m_echo_prefix + m_client_id;
  m_subscription = publisher ? m_echo_prefix + "*" : data_channel;
  m_senders = transport_common::EchoSenders(m_echo_prefix);
  try {
    m_subscribed = connect_one();
    m_publishing = connect_one();
    ask_version();
    subscribe();
    make_non_blocking(m_subscribed);
    make_non_blocking(m_publishing);
  } catch (...) {
    if (m_subscribed != nullptr)
      redisFree(m_subscribed);
    if (m_publishing != nullptr)
      redisFree(m_publishing);
    throw;
  }
  note_setup();
}

RedisEndpoint::~RedisEndpoint()
{
  // Closing is all a Redis client does to leave: the server drops its subscriptions.
  if (m_subscribed != nullptr)
    redisFree(m_subscribed);
  if (m_publishing != nullptr)
    redisFree(m_publishing);
}

redisContext* RedisEndpoint::connect_one()
{
  redisContext* context = redisConnectWithTimeout(m_settings.host.c_str(), m_settings.port,
                                                  timeval_of(m_settings.connect_within));
  if (context == nullptr)
    throw TransportError("cannot make a Redis connection: out of memory");
  if (context->err != 0) {
    const std::string why = context->errstr;
    redisFree(context);
    throw TransportError("cannot reach the Redis server at " + m_server + ": " + why +
                         " (is a server running there? --local-pair with a bare --redis starts "
                         "one of its own)");
  }
  // Blocking reads and writes of the setup end by the same bound; after it, none blocks.
  redisSetTimeout(context, timeval_of(m_settings.connect_within));
  redisEnableKeepAlive(context);
  return context;
}

redisReply* RedisEndpoint::command(redisContext* context, const std::vector<std::string>& arguments,
                                   const char* what)
{
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const std::string& argument : arguments) {
    argv.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data()));
  if (reply == nullptr) {
    const bool silent = context->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
    throw TransportError(
        "the Redis server at " + m_server +
        (silent ? " did not answer " + std::string(what) + " within " +
                      std::to_string(m_settings.connect_within.count()) + " ms"
                : " closed the connection at " + std::string(what) + ": " + context->errstr));
  }
  if (reply->type == REDIS_REPLY_ERROR) {
    const std::string why(text_of(*reply));
    freeReplyObject(reply);
    throw TransportError("the Redis server at " + m_server + " refused " + what + ": " + why);
  }
  return reply;
}

void RedisEndpoint::ask_version()
{
  const ReplyPointer info(command(m_publishing, {"INFO", "server"}, "INFO server"));
  if (info->type == REDIS_REPLY_STRING)
    m_server_version = redis_version_of(std::string(text_of(*info)));
}

void RedisEndpoint::subscribe()
{
  const bool pattern = m_settings.role == Role::publisher;
  const char* verb = pattern ? "PSUBSCRIBE" : "SUBSCRIBE";
  const ReplyPointer confirmed(
      command(m_subscribed, {verb, m_subscription}, pattern ? "PSUBSCRIBE" : "SUBSCRIBE"));
  const bool expected = confirmed->type == REDIS_REPLY_ARRAY && confirmed->elements == 3 &&
                        confirmed->element[0]->type == REDIS_REPLY_STRING &&
                        text_of(*confirmed->element[0]) == (pattern ? "psubscribe" : "subscribe");
  if (!expected)
    throw TransportError("the Redis server at " + m_server + " answered " + verb + " " +
                         m_subscription + " with something other than its confirmation");
}

void RedisEndpoint::make_non_blocking(redisContext* context)
{
  const int flags = fcntl(context->fd, F_GETFL);
  if (flags < 0 || fcntl(context->fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw TransportError(std::string("cannot make a Redis connection non-blocking: ") +
                         std::strerror(errno));
  // hiredis reads EAGAIN as "try later" only on a context it does not take for blocking.
  context->flags &= ~REDIS_BLOCK;
}

void RedisEndpoint::note_setup()
{
  m_notes.push_back(
      "server: " +
      (m_server_version.empty() ? std::string("version not stated") : "Redis " + m_server_version) +
      " (INFO server: redis_version) at " + m_server);
  m_notes.push_back("hiredis " + std::to_string(HIREDIS_MAJOR) + "." +
                    std::to_string(HIREDIS_MINOR) + "." + std::to_string(HIREDIS_PATCH) +
                    ", RESP2, client " + m_client_id);
  m_notes.push_back(
      "two connections to the server: one publishes to " + m_publish_channel + ", the other " +
      (m_settings.role == Role::publisher ? "PSUBSCRIBEd to " : "SUBSCRIBEd to ") + m_subscription +
      "; Redis pub/sub is at most once: nothing is acknowledged or kept, and a "
      "subscriber whose unread messages pass the server's "
      "client-output-buffer-limit pubsub is disconnected");
  m_notes.push_back("no thread of hiredis's own: netprof's thread waits in ppoll on the "
                    "subscribed socket (PUBLISH replies are read after each delivery, not woken "
                    "for), reads with redisBufferRead and hands each parsed message to netprof in "
                    "place; every message crosses two TCP connections (to the server and from it)");
}

} // namespace netprof::redis_parts
