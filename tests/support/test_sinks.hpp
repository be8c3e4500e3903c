#pragma once

// Message sinks the transport tests share: they record what an endpoint delivers so a test can
// assert on it. Test code only; nothing here measures.

#include <netprof/transport.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace netprof::testing {

// What adopt() answers with: as the publisher's acknowledgement of a hello, it goes to every
// peer once the sender is one. The test's own handshake, as that acknowledgement is the core's:
// the sinks below neither keep nor count it.
inline std::span<const std::byte> adoption_note() noexcept
{
  static constexpr std::byte note[] = {std::byte{'a'}, std::byte{'d'}, std::byte{'o'},
                                       std::byte{'p'}, std::byte{'t'}, std::byte{'e'},
                                       std::byte{'d'}};
  return note;
}

inline bool is_adoption_note(std::span<const std::byte> message) noexcept
{
  return std::equal(message.begin(), message.end(), adoption_note().begin(), adoption_note().end());
}

// A delivery's values, kept after on_message returned (its bytes are kept apart).
struct KeptDelivery {
  std::uint32_t datagrams = 0;
  std::size_t wire_bytes = 0;
  std::size_t size = 0; // of its bytes
  PeerHandle sender;
};

// Keeps a copy of every message delivered (adoption notes aside), and what the transport said
// of it.
class CollectingSink final : public MessageSink {
public:
  void on_message(const Delivery& delivery) noexcept override
  {
    if (is_adoption_note(delivery.bytes))
      return;
    messages.emplace_back(delivery.bytes.begin(), delivery.bytes.end());
    deliveries.push_back(
        {delivery.datagrams, delivery.wire_bytes, delivery.bytes.size(), delivery.sender});
  }

  std::vector<std::vector<std::byte>> messages;
  std::vector<KeptDelivery> deliveries;
};

// Counts deliveries only (adoption notes aside).
class CountingSink final : public MessageSink {
public:
  void on_message(const Delivery& delivery) noexcept override
  {
    count += is_adoption_note(delivery.bytes) ? 0 : 1;
  }

  std::size_t count = 0;
};

// Makes `sender` a peer as the publisher does with a hello: Endpoint::reply with PeerFate::adopt,
// answering with adoption_note(). True when it is a peer now.
inline bool adopt(Endpoint& endpoint, PeerHandle sender) noexcept
{
  return endpoint.reply(sender, adoption_note(), PeerFate::adopt).adopted;
}

// Reads the adoption note at the adopted end, as a subscriber reads its acknowledgement, so
// that it takes no room there from what a test sends next. False if it never came (5 s).
inline bool read_adoption_note(Endpoint& adopted) noexcept
{
  struct NoteSink final : MessageSink {
    void on_message(const Delivery& delivery) noexcept override
    {
      seen = seen || is_adoption_note(delivery.bytes);
    }
    bool seen = false;
  } note;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!note.seen && Clock::now() < deadline)
    if (adopted.receive(note, std::chrono::milliseconds(10)) == ReceiveResult::failed)
      return false;
  return note.seen;
}

// Adopts each sender while its message is being delivered, as a publisher does with hellos.
class AdoptingSink final : public MessageSink {
public:
  explicit AdoptingSink(Endpoint& endpoint) : m_endpoint(endpoint) {}

  void on_message(const Delivery& delivery) noexcept override
  {
    ++count;
    adopt(m_endpoint, delivery.sender);
  }

  std::size_t count = 0;

private:
  Endpoint& m_endpoint;
};

} // namespace netprof::testing
