#pragma once

// Message sinks the transport tests share: they record what an endpoint delivers so a test can
// assert on it. Test code only; nothing here measures.

#include <netprof/transport.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace netprof::testing {

// Keeps a copy of every message delivered.
class CollectingSink final : public MessageSink {
public:
  void on_message(std::span<const std::byte> message) noexcept override
  {
    messages.emplace_back(message.begin(), message.end());
  }

  std::vector<std::vector<std::byte>> messages;
};

// Counts deliveries only.
class CountingSink final : public MessageSink {
public:
  void on_message(std::span<const std::byte>) noexcept override { ++count; }

  std::size_t count = 0;
};

// Adopts each sender while its message is being delivered, as a publisher does with hellos.
class AdoptingSink final : public MessageSink {
public:
  explicit AdoptingSink(Endpoint& endpoint) : m_endpoint(endpoint) {}

  void on_message(std::span<const std::byte>) noexcept override
  {
    ++count;
    m_endpoint.add_peer_from_last_message();
  }

  std::size_t count = 0;

private:
  Endpoint& m_endpoint;
};

} // namespace netprof::testing
