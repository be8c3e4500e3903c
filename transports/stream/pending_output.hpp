#pragma once

// What a connection took on but the kernel did not take yet: the rest of a frame that a send
// cut short, and messages queued behind it. They go out in order, before anything else is
// written to that connection, so a stream never carries half a frame followed by another.

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace netprof::stream {

// Every write to a connection: never a SIGPIPE from a peer that left, never a blocking send.
inline constexpr int send_flags = MSG_NOSIGNAL | MSG_DONTWAIT;

class PendingOutput {
public:
  // `records`: each queued message must leave in one send of its own (SOCK_SEQPACKET keeps
  // boundaries); otherwise the queue is a run of bytes written as it goes.
  explicit PendingOutput(bool records = false) noexcept : m_records(records) {}

  // Room for queued bytes without allocating again (allocates now).
  void reserve(std::size_t bytes) { m_bytes.reserve(bytes + record_prefix); }

  bool empty() const noexcept { return m_begin == m_bytes.size(); }
  // Whether `bytes` more fit without allocating. An empty queue always takes a message: it
  // grows for one larger than its capacity, which happens once at most per size.
  bool has_room(std::size_t bytes) const noexcept;

  // Queues the two parts as one message (a frame header and its message, or a record and
  // nothing). False when memory ran out; nothing is queued then.
  bool append(std::span<const std::byte> first, std::span<const std::byte> second) noexcept;

  enum class Flush { done, blocked, failed };
  // Writes what it can to `fd` without blocking; `failed` leaves errno set.
  Flush write_to(int fd) noexcept;

  void clear() noexcept { m_bytes.clear(), m_begin = 0; }

private:
  static constexpr std::size_t record_prefix = sizeof(std::uint32_t);

  Flush write_bytes(int fd) noexcept;
  Flush write_records(int fd) noexcept;

  std::vector<std::byte> m_bytes;
  std::size_t m_begin = 0; // first byte not yet written
  bool m_records;
};

} // namespace netprof::stream
