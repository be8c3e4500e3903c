#include "pending_output.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace netprof::stream {

bool PendingOutput::has_room(std::size_t bytes) const noexcept
{
  return empty() || m_bytes.size() - m_begin + bytes + record_prefix <= m_bytes.capacity();
}

bool PendingOutput::append(std::span<const std::byte> first,
                           std::span<const std::byte> second) noexcept
{
  if (m_begin > 0) {
    // Written bytes go, so the queue reuses its capacity rather than growing.
    m_bytes.erase(m_bytes.begin(), m_bytes.begin() + static_cast<std::ptrdiff_t>(m_begin));
    m_begin = 0;
  }
  try {
    if (m_records) {
      const auto length = static_cast<std::uint32_t>(first.size() + second.size());
      const auto* prefix = reinterpret_cast<const std::byte*>(&length);
      m_bytes.insert(m_bytes.end(), prefix, prefix + record_prefix);
    }
    m_bytes.insert(m_bytes.end(), first.begin(), first.end());
    m_bytes.insert(m_bytes.end(), second.begin(), second.end());
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

PendingOutput::Flush PendingOutput::write_to(int fd) noexcept
{
  const Flush result = m_records ? write_records(fd) : write_bytes(fd);
  if (result == Flush::done) {
    clear();
  }
  return result;
}

PendingOutput::Flush PendingOutput::write_bytes(int fd) noexcept
{
  while (!empty()) {
    const ssize_t sent = send(fd, m_bytes.data() + m_begin, m_bytes.size() - m_begin, send_flags);
    if (sent > 0) {
      m_begin += static_cast<std::size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return Flush::blocked;
    } else {
      return Flush::failed;
    }
  }
  return Flush::done;
}

PendingOutput::Flush PendingOutput::write_records(int fd) noexcept
{
  while (!empty()) {
    std::uint32_t length = 0;
    std::memcpy(&length, m_bytes.data() + m_begin, record_prefix);
    const ssize_t sent = send(fd, m_bytes.data() + m_begin + record_prefix, length, send_flags);
    if (sent >= 0) {
      m_begin += record_prefix + length;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
      return Flush::blocked;
    } else {
      return Flush::failed;
    }
  }
  return Flush::done;
}

} // namespace netprof::stream
