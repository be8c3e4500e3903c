#pragma once

#include "socket_address.hpp"

#include <netinet/in.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace netprof::udp {

// The addresses an endpoint sends to. Fixed capacity, allocated once: send headers point into
// it, so it never reallocates, and a publisher can learn subscribers in the measured loop.
class PeerTable {
public:
  static constexpr std::size_t capacity = 1024;

  PeerTable() : m_peers(capacity) {}
  PeerTable(const PeerTable&) = delete; // send headers point into it
  PeerTable& operator=(const PeerTable&) = delete;

  // True when the peer is (now) known; false when the table is full.
  bool add(const sockaddr_in& peer) noexcept
  {
    if (find(peer)) {
      return true;
    }
    if (m_size == capacity) {
      return false;
    }
    m_peers[m_size++] = peer;
    return true;
  }

  // Where the peer is in the table; nothing when it is not there.
  std::optional<std::size_t> find(const sockaddr_in& peer) const noexcept
  {
    const auto end = m_peers.begin() + static_cast<std::ptrdiff_t>(m_size);
    const auto found = std::find_if(
        m_peers.begin(), end, [&](const sockaddr_in& known) { return same_endpoint(known, peer); });
    if (found == end) {
      return std::nullopt;
    }
    return static_cast<std::size_t>(found - m_peers.begin());
  }

  std::size_t size() const noexcept { return m_size; }
  const sockaddr_in& operator[](std::size_t i) const noexcept { return m_peers[i]; }
  // For msg_name, which wants a non-const pointer; the kernel only reads it.
  sockaddr_in* address(std::size_t i) noexcept { return &m_peers[i]; }

private:
  std::vector<sockaddr_in> m_peers;
  std::size_t m_size = 0;
};

} // namespace netprof::udp
