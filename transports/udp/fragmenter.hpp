#pragma once

#include "fragment_header.hpp"

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace netprof::udp {

// Splits a message into fragments without copying it: each fragment is two iovecs, its own
// encoded header and a slice of the caller's message. Works a chunk at a time (at most what one
// sendmmsg takes), so its memory does not grow with the message. Socket-free.
class Fragmenter {
public:
  // fragment_size: payload bytes per fragment (min_fragment_payload .. max_fragment_payload);
  // chunk: fragments prepared at once. Allocates everything here.
  Fragmenter(std::size_t fragment_size, std::size_t chunk);

  std::size_t fragment_size() const noexcept { return m_fragment_size; }
  std::size_t chunk() const noexcept { return m_chunk; }

  // Fragments a message of `size` bytes is split into (at least 1).
  std::uint32_t count_for(std::size_t size) const noexcept;

  // Prepares fragments first .. first + n - 1 of `message`, framed as message `id`, and returns
  // n = min(chunk, count - first). Precondition: first < count_for(message.size()), and the
  // message is at most UINT32_MAX bytes. The iovecs point into `message`, which must stay
  // unchanged until they are sent.
  std::size_t prepare(std::span<const std::byte> message, std::uint32_t id,
                      std::uint32_t first) noexcept;

  // Two per prepared fragment: [2i] its header, [2i + 1] its payload. Stable addresses, so
  // mmsghdrs can point at them once and for all.
  iovec* iovecs() noexcept { return m_iovecs.get(); }

private:
  std::size_t m_fragment_size;
  std::size_t m_chunk;
  std::unique_ptr<std::byte[]> m_headers;
  std::unique_ptr<iovec[]> m_iovecs;
};

} // namespace netprof::udp
