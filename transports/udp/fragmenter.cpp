#include "fragmenter.hpp"

#include <algorithm>

namespace netprof::udp {

Fragmenter::Fragmenter(std::size_t fragment_size, std::size_t chunk)
    : m_fragment_size(fragment_size), m_chunk(chunk),
      m_headers(std::make_unique<std::byte[]>(chunk * fragment_header_size)),
      m_iovecs(std::make_unique<iovec[]>(2 * chunk))
{
  for (std::size_t i = 0; i < chunk; ++i) {
    m_iovecs[2 * i].iov_base = m_headers.get() + i * fragment_header_size;
    m_iovecs[2 * i].iov_len = fragment_header_size;
  }
}

std::uint32_t Fragmenter::count_for(std::size_t size) const noexcept
{
  const std::size_t count = (size + m_fragment_size - 1) / m_fragment_size;
  return static_cast<std::uint32_t>(std::max<std::size_t>(count, 1));
}

std::size_t Fragmenter::prepare(std::span<const std::byte> message, std::uint32_t id,
                                std::uint32_t first) noexcept
{
  const std::uint32_t count = count_for(message.size());
  const std::size_t prepared = std::min<std::size_t>(m_chunk, count - first);
  FragmentHeader header;
  header.message_id = id;
  header.total = static_cast<std::uint32_t>(message.size());
  header.count = count;
  for (std::size_t i = 0; i < prepared; ++i) {
    header.index = first + static_cast<std::uint32_t>(i);
    const std::size_t offset = header.index * m_fragment_size;
    header.offset = static_cast<std::uint32_t>(offset);
    encode_fragment_header(header, std::span<std::byte>(m_headers.get() + i * fragment_header_size,
                                                        fragment_header_size));
    // iovec wants a non-const pointer; sendmmsg only reads through it.
    m_iovecs[2 * i + 1].iov_base = const_cast<std::byte*>(message.data() + offset);
    m_iovecs[2 * i + 1].iov_len = std::min(m_fragment_size, message.size() - offset);
  }
  return prepared;
}

} // namespace netprof::udp
