#pragma once

#include "common/echo_senders.hpp"

#include <netprof/transport.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;
struct redisReply;

namespace netprof::redis_parts {

// What the transport derived from the command line for one endpoint.
struct EndpointSettings {
  Role role = Role::publisher;
  std::string host = "127.0.0.1"; // the server
  std::uint16_t port = 6379;
  std::string prefix = "netprof";         // channels: PREFIX:data, PREFIX:echo:CLIENT-ID
  std::size_t requested_buffer_bytes = 0; // -q as given
  std::chrono::milliseconds connect_within{5000};
};

// Bytes the server writes to a subscriber for one message on `channel` (RESP2 "message" push),
// or, with a pattern, for a "pmessage" push.
std::size_t message_push_bytes(std::size_t channel_length, std::size_t payload) noexcept;
std::size_t pmessage_push_bytes(std::size_t pattern_length, std::size_t channel_length,
                                std::size_t payload) noexcept;

// A reply's text (a string, status or error reply); empty when it has none.
std::string_view text_of(const redisReply& reply) noexcept;

// "7.0.15" from the text of INFO server (its redis_version line); empty when there is none.
std::string redis_version_of(const std::string& info);

// Two connections to the server for one process, driven by the thread that calls the hooks (no
// thread of hiredis's own, no callback). Redis's pub/sub needs two: a connection that has
// subscribed can only (un)subscribe and PING, so messages go out on the other.
// Publisher: PUBLISH PREFIX:data on the publishing connection; PSUBSCRIBE PREFIX:echo:* on the
// subscribed one. Subscriber: PUBLISH PREFIX:echo:ITS-CLIENT-ID; SUBSCRIBE PREFIX:data. The
// server reaches every subscriber, so nothing is adopted; the echo channel names the sender.
// After setup both sockets are non-blocking: receive() waits in ppoll on them, reads with
// redisBufferRead and takes each parsed push from hiredis's reader (redisGetReplyFromReader),
// handing its payload to the sink in place; the publishing connection's replies (the number of
// subscribers PUBLISH reached) are read and dropped on the way.
class RedisEndpoint final : public Endpoint, public RoomWaiter {
public:
  // The largest message netprof sends: an eighth of the 32 MB a default server lets a
  // subscriber's unread messages reach before it disconnects it (client-output-buffer-limit).
  static constexpr std::size_t max_payload_size = std::size_t{4} << 20;
  // Messages handed to the sink per receive() at most.
  static constexpr int receive_batch = 32;

  // Connects both, asks the server's version, subscribes and waits for the confirmation, at most
  // connect_within; throws TransportError (server absent, refusing, or silent).
  explicit RedisEndpoint(const EndpointSettings& settings);
  ~RedisEndpoint() override;

  SendOutcome send(std::span<const std::byte> message) noexcept override;
  SendOutcome flush() noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  EndpointFacts facts() const override;
  RoomWait wait_for_room(Nanoseconds timeout) noexcept override;

private:
  // Setup (redis_endpoint_setup.cpp).
  redisContext* connect_one();
  redisReply* command(redisContext* context, const std::vector<std::string>& arguments,
                      const char* what);
  void ask_version();
  void subscribe();
  void make_non_blocking(redisContext* context);
  void note_setup();

  // The hot path (redis_endpoint.cpp).
  // Hands what hiredis's reader of the subscribed connection has parsed to the sink, at most
  // up to receive_batch in all; false when the connection failed.
  bool deliver_parsed(MessageSink& sink) noexcept;
  void deliver(const redisReply& push, MessageSink& sink) noexcept;
  // Reads the publishing connection's replies (and drops them); false when it failed.
  bool read_publish_replies() noexcept;
  // Writes what hiredis still holds for the publishing connection while the socket takes it;
  // false when the connection failed.
  bool write_pending() noexcept;
  bool pending() const noexcept;
  // Writes what is pending for at most `within`, waiting for the socket to take it.
  void finish_writing(Nanoseconds within) noexcept;
  void lost_subscribed_connection() noexcept;
  // Reading or writing the publishing connection failed: hiredis's errstr says how.
  void lost_publishing_connection() noexcept;
  void fail(std::string why) noexcept;
  PeerHandle sender_of(const char* channel, std::size_t length) noexcept;

  EndpointSettings m_settings;
  std::string m_server; // HOST:PORT, for messages
  redisContext* m_subscribed = nullptr;
  redisContext* m_publishing = nullptr;
  std::string m_client_id;
  std::string m_publish_channel;
  std::string m_subscription; // a channel (subscriber) or a pattern (publisher)
  std::string m_echo_prefix;  // PREFIX:echo:
  int m_delivered = 0;
  std::uint64_t m_unanswered = 0; // PUBLISHes sent whose replies are not read yet
  bool m_failed = false;
  std::string m_failure;
  std::string m_server_version; // INFO server: redis_version
  // Subscribers whose echoes arrived, by client id: a PeerHandle is the index + 1.
  transport_common::EchoSenders m_senders;
  std::vector<std::string> m_notes;
  std::vector<std::string> m_diagnoses;
};

} // namespace netprof::redis_parts
