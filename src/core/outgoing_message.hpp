#pragma once

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace netprof {

// A message buffer allocated once at setup; the loops only rewrite its header.
class OutgoingMessage {
public:
  explicit OutgoingMessage(std::size_t payload_size) : m_bytes(wire::header_size + payload_size) {}

  std::span<std::byte> payload() noexcept
  {
    return std::span<std::byte>(m_bytes).subspan(wire::header_size);
  }

  // Encodes the header (its payload_length is set from the buffer) and returns the message.
  std::span<std::byte> with_header(wire::Header header) noexcept
  {
    header.payload_length = static_cast<std::uint32_t>(m_bytes.size() - wire::header_size);
    wire::encode_header(header, m_bytes);
    return m_bytes;
  }

private:
  std::vector<std::byte> m_bytes;
};

} // namespace netprof
