#pragma once

// What the threaded protocol tests share: a role (publisher or subscriber loop) on a thread of
// its own, a publisher and subscriber run to their ends, and a message built from a bare header.
// The configurations they run are in run_configs.hpp.

#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "run_configs.hpp"
#include "severable_endpoint.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>
#include <vector>

namespace netprof::testing {

// Runs a role on its own thread; every flag it uses outlives it.
struct RoleThread {
  StopFlag stop;
  LiveCounters live;
  std::future<RoleResult> result;

  void start_subscriber(const RunConfig& config, Endpoint& endpoint)
  {
    result = std::async(std::launch::async, [&, config] {
      return run_subscriber(config, endpoint, stop, live, Clock::now());
    });
  }
  void start_publisher(const RunConfig& config, Endpoint& endpoint)
  {
    result = std::async(std::launch::async,
                        [&, config] { return run_publisher(config, endpoint, stop, live); });
  }
  // As SIGKILL: cut off, then stopped; nothing it says on the way out is heard.
  RoleResult kill(SeverableEndpoint& endpoint)
  {
    endpoint.sever();
    stop.request();
    return result.get();
  }
};

struct PairOutcome {
  RoleResult publisher;
  RoleResult subscriber;
};

// Runs a subscriber (on a thread of its own) and a publisher (on this one) to their ends.
inline PairOutcome run_pair(Endpoint& publisher_end, Endpoint& subscriber_end,
                            const RunConfig& publisher_config, const RunConfig& subscriber_config,
                            const StopFlag& publisher_stop = {})
{
  StopFlag subscriber_stop;
  LiveCounters publisher_live, subscriber_live;
  auto subscriber = std::async(std::launch::async, [&] {
    return run_subscriber(subscriber_config, subscriber_end, subscriber_stop, subscriber_live,
                          Clock::now());
  });
  RoleResult publisher =
      run_publisher(publisher_config, publisher_end, publisher_stop, publisher_live);
  return {std::move(publisher), subscriber.get()};
}

inline PairOutcome run_pair(InMemoryLink& link, const RunConfig& publisher_config,
                            const RunConfig& subscriber_config, const StopFlag& publisher_stop = {})
{
  return run_pair(link.publisher, link.subscriber, publisher_config, subscriber_config,
                  publisher_stop);
}

// Waits (bounded) until the publisher is in its measured phase and has sent `messages`.
inline void wait_until_sent(const RoleThread& publisher, std::uint64_t messages)
{
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (publisher.live.sent.load() < messages) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the publisher never got going";
    std::this_thread::sleep_for(1ms);
  }
}

// `header` encoded in front of `payload_size` zero bytes (its payload_length set to match).
inline std::vector<std::byte> message_of(wire::Header header, std::size_t payload_size = 0)
{
  std::vector<std::byte> bytes(wire::header_size + payload_size);
  header.payload_length = static_cast<std::uint32_t>(payload_size);
  wire::encode_header(header, bytes);
  return bytes;
}

} // namespace netprof::testing

namespace netprof::testing {

// A scripted subscriber's hello that proves its address (wire.hpp, "Address proof"): says
// hello, finds the publisher's challenge among what it sent to subscribers (skipping the rest),
// and says hello again with the cookie. For tests without a subscriber thread of their own.
// Returns that proven hello, for saying it again; nothing when no challenge came in time.
template <typename Queue>
std::optional<wire::Header> say_proven_hello(Queue& to_publisher, Queue& to_subscriber,
                                             wire::Header hello,
                                             Nanoseconds timeout = std::chrono::seconds(5))
{
  hello.kind = wire::MessageKind::hello;
  wire::carry_secret(hello, 0);
  to_publisher.push(message_of(hello));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::byte> sent;
  wire::Header challenge;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!to_subscriber.pop(sent, std::chrono::milliseconds(10)) ||
        wire::decode_header(sent, challenge) != wire::DecodeError::none)
      continue;
    if (challenge.kind == wire::MessageKind::challenge && challenge.sequence == hello.sender_id &&
        challenge.record_count == hello.record_count) {
      wire::carry_secret(hello, wire::carried_secret(challenge));
      to_publisher.push(message_of(hello));
      return hello;
    }
  }
  return std::nullopt;
}

} // namespace netprof::testing
