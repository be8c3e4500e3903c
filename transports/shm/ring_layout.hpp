#pragma once

// The shared ring's memory (ring.hpp): its sizes, its control lines, and RingView, which finds
// them in a byte span.
//
// Memory layout (bytes_needed()): config line | writer line | wake line | one line per reader |
// data area (capacity bytes). All shared words are accessed through std::atomic_ref, except by
// keep_last's copy (record_copy.hpp), which says why.

#include "wake_line.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace netprof::shm {

// Every word of the segment other processes touch is read and written atomically, through this.
template <typename T> std::atomic_ref<T> shared(T& value) noexcept
{
  return std::atomic_ref<T>(value);
}

enum class History : std::uint32_t { keep_last = 1, keep_all = 2 };

const char* to_string(History history) noexcept;

inline constexpr std::size_t record_alignment = cache_line;
inline constexpr std::size_t record_header_size = 8;
inline constexpr std::size_t min_ring_capacity = 256;
inline constexpr std::size_t max_ring_capacity = std::size_t{1} << 30;

// Largest message a ring of `capacity` bytes takes: half the ring minus the header, so that a
// record plus the padding in front of it always fits once the readers have caught up.
constexpr std::size_t max_message_size(std::size_t capacity) noexcept
{
  return capacity / 2 - record_header_size;
}

constexpr std::uint64_t record_size(std::uint64_t length) noexcept
{
  return (record_header_size + length + record_alignment - 1) &
         ~std::uint64_t{record_alignment - 1};
}

struct alignas(cache_line) RingConfig {
  std::uint64_t capacity; // bytes in the data area, a power of two
  std::uint32_t readers;  // reader lines
  std::uint32_t history;  // History
  std::uint64_t salt;     // XORed into every header
};

struct alignas(cache_line) WriterLine {
  std::uint64_t tail;   // position after the last published record
  std::uint64_t oldest; // keep_last: the oldest record not invalidated (where lapped readers go)
};

enum class ReaderState : std::uint32_t { free = 0, reserved = 1, active = 2 };

struct alignas(cache_line) ReaderLine {
  std::uint64_t head;  // next position this reader reads; keep_all writers stay within a lap of it
  std::uint32_t state; // ReaderState
};

static_assert(sizeof(RingConfig) == cache_line && sizeof(WriterLine) == cache_line &&
              sizeof(ReaderLine) == cache_line);

// The ring's parts inside a span. Cheap to copy; owns nothing.
class RingView {
public:
  static std::size_t bytes_needed(std::size_t capacity, std::size_t readers) noexcept;

  // Writes the control lines of a new ring and, at every 64 B offset of its data area, a
  // header that a reader takes for the previous lap's (so "nothing yet", see RingReader).
  // Precondition: `memory` is 64-byte aligned and holds bytes_needed() bytes. Readers start free,
  // or active at position 0 when `readers_active` (a back ring whose one reader exists before the
  // writer). `salt` should be random. Returns nullopt when the arguments do not make a ring.
  static std::optional<RingView> format(std::span<std::byte> memory, std::size_t capacity,
                                        std::size_t readers, History history, std::uint64_t salt,
                                        bool readers_active = false) noexcept;

  // A ring some other party formatted; nullopt when the config line does not fit the span.
  static std::optional<RingView> open(std::span<std::byte> memory) noexcept;

  std::uint64_t capacity() const noexcept { return m_capacity; }
  std::size_t readers() const noexcept { return m_readers; }
  History history() const noexcept { return m_history; }
  std::size_t max_message_size() const noexcept { return shm::max_message_size(m_capacity); }

  WriterLine& writer_line() const noexcept { return *m_writer; }
  WakeLine& wake_line() const noexcept { return *m_wake; }
  ReaderLine& reader_line(std::size_t index) const noexcept { return m_reader_lines[index]; }
  std::byte* data() const noexcept { return m_data; }

  // A record's header as stored, and its parts as read back.
  std::uint64_t seal(std::uint64_t position, std::uint64_t length, bool padding) const noexcept
  {
    return ((std::uint64_t{tag(position)} << 32) | (padding ? padding_flag : 0) | length) ^ m_salt;
  }
  std::uint64_t invalid_header() const noexcept { return m_salt; }
  bool sealed_at(std::uint64_t header, std::uint64_t position) const noexcept
  {
    return tag_of(header) == tag(position);
  }
  std::uint32_t tag_of(std::uint64_t header) const noexcept
  {
    return static_cast<std::uint32_t>((header ^ m_salt) >> 32);
  }
  static constexpr std::uint32_t tag_modulus = 0xffffffffu;
  static std::uint32_t tag(std::uint64_t position) noexcept
  {
    return static_cast<std::uint32_t>((position / record_alignment) % tag_modulus) + 1;
  }
  static std::uint64_t length_of(std::uint64_t header, std::uint64_t salt) noexcept
  {
    return (header ^ salt) & (padding_flag - 1);
  }
  std::uint64_t length_of(std::uint64_t header) const noexcept { return length_of(header, m_salt); }
  bool is_padding(std::uint64_t header) const noexcept
  {
    return ((header ^ m_salt) & padding_flag) != 0;
  }

  std::uint64_t tail() const noexcept
  {
    return std::atomic_ref<std::uint64_t>(m_writer->tail).load(std::memory_order_acquire);
  }

  // Frees a reader's cursor from outside (its process died), so a keep_all writer stops
  // waiting for it. A reader still alive notices (dropped()) and re-attaches.
  void drop_reader(std::size_t index) const noexcept;

private:
  static constexpr std::uint64_t padding_flag = std::uint64_t{1} << 31;

  RingView(std::span<std::byte> memory, std::uint64_t capacity, std::size_t readers,
           History history, std::uint64_t salt) noexcept;

  WriterLine* m_writer = nullptr;
  WakeLine* m_wake = nullptr;
  ReaderLine* m_reader_lines = nullptr;
  std::byte* m_data = nullptr;
  std::uint64_t m_capacity = 0;
  std::uint64_t m_salt = 0;
  std::size_t m_readers = 0;
  History m_history = History::keep_last;
};

} // namespace netprof::shm
