#pragma once

// How a UDP endpoint names a sender at the seam (netprof::PeerHandle): its IPv4 address and
// port, the same 48 bits the reassembler keys partial messages by, with a bit above them so
// that no address (0.0.0.0:0 included) encodes as "none".

#include <netprof/transport.hpp>

#include <netinet/in.h>

#include <cstdint>
#include <optional>

namespace netprof::udp {

// Address in bits 16-47, port in bits 0-15, both in host order.
inline std::uint64_t source_key(const sockaddr_in& source) noexcept
{
  return (std::uint64_t{ntohl(source.sin_addr.s_addr)} << 16) | ntohs(source.sin_port);
}

inline constexpr std::uint64_t peer_handle_tag = std::uint64_t{1} << 48;

inline PeerHandle peer_handle(const sockaddr_in& source) noexcept
{
  return PeerHandle{source_key(source) | peer_handle_tag};
}

// The address a handle of ours names; nothing for "none" or a handle no UDP endpoint made.
inline std::optional<sockaddr_in> peer_address(PeerHandle handle) noexcept
{
  if ((handle.value >> 48) != 1) {
    return std::nullopt;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(static_cast<std::uint32_t>(handle.value >> 16));
  address.sin_port = htons(static_cast<std::uint16_t>(handle.value & 0xffff));
  return address;
}

} // namespace netprof::udp
