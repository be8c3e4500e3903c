#include "redis_endpoint.hpp"

#include "common/broker_wire_bytes.hpp"
#include "common/socket_wait.hpp"

#include <hiredis/hiredis.h>

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace netprof::redis_parts {

namespace {

// Unread PUBLISH replies past which a waiting receive() wakes to read them (a stream's), so they
// never pile up in the socket.
constexpr std::uint64_t replies_worth_a_wake = 64;

// How long send() goes on writing a message larger than the socket takes at once.
constexpr auto finish_within = std::chrono::milliseconds(1000);
// How long a lost subscribed connection waits to see whether the other was lost too.
constexpr auto other_connection_within = std::chrono::milliseconds(200);

// "$LEN\r\nBYTES\r\n"
std::size_t bulk_bytes(std::size_t length) noexcept
{
  return 1 + transport_common::digits_in_base<10>(length) + 2 + length + 2;
}

bool is_string(const redisReply* reply) noexcept
{
  return reply != nullptr && reply->type == REDIS_REPLY_STRING;
}

} // namespace

std::size_t message_push_bytes(std::size_t channel_length, std::size_t payload) noexcept
{
  return 4 + bulk_bytes(7) + bulk_bytes(channel_length) + bulk_bytes(payload);
}

std::size_t pmessage_push_bytes(std::size_t pattern_length, std::size_t channel_length,
                                std::size_t payload) noexcept
{
  return 4 + bulk_bytes(8) + bulk_bytes(pattern_length) + bulk_bytes(channel_length) +
         bulk_bytes(payload);
}

void RedisEndpoint::fail(std::string why) noexcept
{
  if (m_failed)
    return;
  m_failed = true;
  try {
    m_failure = std::move(why);
    m_diagnoses.push_back(m_failure);
  } catch (...) {
  }
}

void RedisEndpoint::lost_subscribed_connection() noexcept
{
  if (m_failed)
    return;
  // A server that stopped closes both connections at once; one that dropped this subscriber
  // (its unread messages passed client-output-buffer-limit pubsub, or CLIENT KILL) keeps the
  // publishing connection open.
  pollfd other{m_publishing->fd, POLLRDHUP, 0};
  const timespec limit = transport_common::timespec_of(other_connection_within);
  const bool both = ppoll(&other, 1, &limit, nullptr) > 0 &&
                    (other.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  try {
    if (both)
      fail("the connection to the Redis server at " + m_server +
           " was lost (did the server stop?)");
    else
      fail("the Redis server at " + m_server + " closed the subscribed connection (" +
           m_subscribed->errstr +
           ") while the publishing one stayed open: a server disconnects a subscriber whose "
           "unread messages pass its client-output-buffer-limit pubsub (Redis's default: 32 MB, "
           "or 8 MB for 60 s), so this one lagged too far behind (or a client killed it)");
  } catch (...) {
    fail({});
  }
}

void RedisEndpoint::lost_publishing_connection() noexcept
{
  try {
    fail("the connection to the Redis server at " + m_server + " was lost (" +
         m_publishing->errstr + "; did the server stop?)");
  } catch (...) {
    fail({});
  }
}

PeerHandle RedisEndpoint::sender_of(const char* channel, std::size_t length) noexcept
{
  if (m_settings.role == Role::subscriber)
    return PeerHandle{1}; // the publisher: only it publishes data
  return m_senders.of(std::string_view(channel, length));
}

void RedisEndpoint::deliver(const redisReply& push, MessageSink& sink) noexcept
{
  // ["message", channel, payload] or ["pmessage", pattern, channel, payload]; anything else on a
  // subscribed connection (a confirmation) carries no message.
  if (push.type != REDIS_REPLY_ARRAY || push.elements < 3 || !is_string(push.element[0]))
    return;
  const std::string_view kind = text_of(*push.element[0]);
  const bool pattern = kind == "pmessage" && push.elements == 4;
  if (!pattern && !(kind == "message" && push.elements == 3))
    return;
  const redisReply* channel = push.element[pattern ? 2 : 1];
  const redisReply* payload = push.element[pattern ? 3 : 2];
  if (!is_string(channel) || !is_string(payload))
    return;
  const std::size_t size = payload->len;
  Delivery delivery;
  delivery.bytes = {reinterpret_cast<const std::byte*>(payload->str), size};
  delivery.datagrams = 1;
  delivery.wire_bytes = pattern ? pmessage_push_bytes(push.element[1]->len, channel->len, size)
                                : message_push_bytes(channel->len, size);
  delivery.sender = sender_of(channel->str, channel->len);
  sink.on_message(delivery);
  ++m_delivered;
}

bool RedisEndpoint::deliver_parsed(MessageSink& sink) noexcept
{
  while (m_delivered < receive_batch) {
    void* parsed = nullptr;
    if (redisGetReplyFromReader(m_subscribed, &parsed) != REDIS_OK) {
      try {
        fail("the Redis server at " + m_server +
             " sent what hiredis cannot read: " + m_subscribed->errstr);
      } catch (...) {
        fail({});
      }
      return false;
    }
    if (parsed == nullptr)
      return true;
    auto* push = static_cast<redisReply*>(parsed);
    deliver(*push, sink);
    freeReplyObject(push);
  }
  return true;
}

bool RedisEndpoint::read_publish_replies() noexcept
{
  if (redisBufferRead(m_publishing) != REDIS_OK) {
    lost_publishing_connection();
    return false;
  }
  for (;;) {
    void* parsed = nullptr;
    if (redisGetReplyFromReader(m_publishing, &parsed) != REDIS_OK) {
      fail("the Redis server sent what hiredis cannot read on the publishing connection");
      return false;
    }
    if (parsed == nullptr)
      return true;
    auto* reply = static_cast<redisReply*>(parsed);
    if (reply->type == REDIS_REPLY_ERROR) {
      try {
        fail("the Redis server at " + m_server + " refused PUBLISH " + m_publish_channel + ": " +
             std::string(text_of(*reply)));
      } catch (...) {
        fail({});
      }
      freeReplyObject(reply);
      return false;
    }
    freeReplyObject(reply); // the number of subscribers reached
    if (m_unanswered > 0)
      --m_unanswered;
  }
}

bool RedisEndpoint::pending() const noexcept
{
  return m_publishing->obuf != nullptr && sdslen(m_publishing->obuf) > 0;
}

bool RedisEndpoint::write_pending() noexcept
{
  if (m_failed)
    return false;
  if (!pending())
    return true;
  int done = 0;
  if (redisBufferWrite(m_publishing, &done) != REDIS_OK) {
    lost_publishing_connection();
    return false;
  }
  return true;
}

void RedisEndpoint::finish_writing(Nanoseconds within) noexcept
{
  const auto deadline = Clock::now() + within;
  while (!m_failed && pending()) {
    const auto now = Clock::now();
    if (now >= deadline)
      return;
    pollfd watched{m_publishing->fd, POLLOUT, 0};
    const timespec limit = transport_common::timespec_of(deadline - now);
    if (ppoll(&watched, 1, &limit, nullptr) <= 0)
      return;
    if (!write_pending())
      return;
  }
}

ReceiveResult RedisEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (m_failed || !write_pending())
    return ReceiveResult::failed;
  m_delivered = 0;
  // What an earlier read brought beyond its batch comes first, without waiting.
  if (!deliver_parsed(sink))
    return ReceiveResult::failed;
  const auto deadline = Clock::now() + timeout;
  while (m_delivered == 0) {
    const Nanoseconds wait = std::max(Nanoseconds::zero(), deadline - Clock::now());
    // A PUBLISH's reply arrives while its message is on the way: waking for it would add a
    // wake-up of netprof's to every round trip (a blocking client reads it after the echo). The
    // replies are read after each delivery, and woken for only once many are unread.
    const bool replies_wake = m_unanswered >= replies_worth_a_wake;
    pollfd watched[2] = {
        {m_subscribed->fd, POLLIN, 0},
        {m_publishing->fd,
         static_cast<short>((replies_wake ? POLLIN : 0) | (pending() ? POLLOUT : 0)), 0}};
    const timespec limit = transport_common::timespec_of(wait);
    if (ppoll(watched, 2, &limit, nullptr) <= 0)
      break; // timed out, or a signal: the caller looks at its deadline
    if ((watched[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !read_publish_replies())
      return ReceiveResult::failed;
    if ((watched[1].revents & POLLOUT) != 0 && !write_pending())
      return ReceiveResult::failed;
    if ((watched[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      if (redisBufferRead(m_subscribed) != REDIS_OK) {
        lost_subscribed_connection();
        return m_delivered > 0 ? ReceiveResult::received : ReceiveResult::failed;
      }
      if (!deliver_parsed(sink) || (m_unanswered > 0 && !read_publish_replies()))
        return m_delivered > 0 ? ReceiveResult::received : ReceiveResult::failed;
    }
    if (wait == Nanoseconds::zero())
      break;
  }
  return m_delivered > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
}

SendOutcome RedisEndpoint::send(std::span<const std::byte> message) noexcept
{
  if (m_failed)
    return {SendResult::failed, SendCause::error};
  if (message.size() > max_payload_size)
    return {SendResult::failed, SendCause::error};
  // Another message still waits for the socket: this one waits for it (wait_for_room).
  if (!write_pending())
    return {SendResult::failed, SendCause::error};
  if (pending())
    return {SendResult::back_pressured, SendCause::would_block};
  const char* argv[3] = {"PUBLISH", m_publish_channel.c_str(),
                         reinterpret_cast<const char*>(message.data())};
  const std::size_t lengths[3] = {7, m_publish_channel.size(), message.size()};
  if (redisAppendCommandArgv(m_publishing, 3, argv, lengths) != REDIS_OK) {
    fail("hiredis could not queue a PUBLISH (out of memory)");
    return {SendResult::failed, SendCause::error};
  }
  ++m_unanswered;
  if (!write_pending())
    return {SendResult::failed, SendCause::error};
  // A message larger than the socket takes at once: its rest is written here, as a blocking
  // Redis client's PUBLISH would, for a bounded while; flush() or receive() writes what is left.
  if (pending())
    finish_writing(finish_within);
  return {};
}

SendOutcome RedisEndpoint::flush() noexcept
{
  if (!write_pending())
    return {SendResult::failed, SendCause::error};
  if (pending())
    return {SendResult::back_pressured, SendCause::would_block};
  return {};
}

RoomWait RedisEndpoint::wait_for_room(Nanoseconds timeout) noexcept
{
  if (m_failed)
    return RoomWait::failed;
  if (pending()) {
    pollfd watched{m_publishing->fd, POLLOUT, 0};
    const timespec limit = transport_common::timespec_of(timeout);
    if (ppoll(&watched, 1, &limit, nullptr) > 0 && !write_pending())
      return RoomWait::failed;
  }
  return RoomWait::ready;
}

EndpointFacts RedisEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "redis";
  facts.local_addresses = {"client " + m_client_id + " (channels " + m_settings.prefix + ":...)"};
  facts.peer_addresses = {"server " + m_server};
  facts.max_message_size = max_payload_size;
  facts.size_hint = "Redis takes up to 512 MB per message (proto-max-bulk-len); netprof sends at "
                    "most 4 MiB, an eighth of the 32 MB a default server lets a subscriber's "
                    "unread messages reach before it disconnects it";
  facts.requested_buffer_bytes = m_settings.requested_buffer_bytes;
  facts.notes = m_notes;
  facts.diagnoses = m_diagnoses;
  return facts;
}

} // namespace netprof::redis_parts
