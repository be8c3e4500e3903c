#pragma once

// Message sinks the transport tests share: they record what an endpoint delivers so a test can
// assert on it. Test code only; nothing here measures.

#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace netprof::testing {

// A delivery's values, kept after on_message returned (its bytes are kept apart).
struct KeptDelivery {
  std::uint32_t datagrams = 0;
  std::size_t wire_bytes = 0;
  std::size_t size = 0; // of its bytes
  PeerHandle sender;
};

// Keeps a copy of every message delivered, and what the transport said of it.
class CollectingSink final : public MessageSink {
public:
  void on_message(const Delivery& delivery) noexcept override
  {
    messages.emplace_back(delivery.bytes.begin(), delivery.bytes.end());
    deliveries.push_back(
        {delivery.datagrams, delivery.wire_bytes, delivery.bytes.size(), delivery.sender});
  }

  std::vector<std::vector<std::byte>> messages;
  std::vector<KeptDelivery> deliveries;
};

// Counts deliveries only.
class CountingSink final : public MessageSink {
public:
  void on_message(const Delivery&) noexcept override { ++count; }

  std::size_t count = 0;
};

// Adopts each sender while its message is being delivered, as a publisher does with hellos.
class AdoptingSink final : public MessageSink {
public:
  explicit AdoptingSink(Endpoint& endpoint) : m_endpoint(endpoint) {}

  void on_message(const Delivery& delivery) noexcept override
  {
    ++count;
    m_endpoint.adopt_peer(delivery.sender);
  }

  std::size_t count = 0;

private:
  Endpoint& m_endpoint;
};

} // namespace netprof::testing
