#pragma once

// A lock-free ring of variable-size records, one writer and any number of readers, laid over
// any byte span: unit tests put it on an ordinary array, the transport in a shared mapping.
// In the style of Aeron's OneToOneRingBuffer: power-of-two capacity, control words on their own
// cache lines, a record's header published last with a release store, a padding record where
// a record would straddle the end, offsets and positions only, never pointers.
//
// Positions are byte counts since the ring was formatted (64-bit, never wrap); a position's
// offset in the data area is position & (capacity - 1). Every record starts on a 64-byte
// boundary, so consecutive records never share a cache line:
//
//   record:  stamp u64 | length u32, type u32 (one u64) | payload, padded to 64 B
//
// The stamp is the record's position plus one, stored last (release); a reader at position h
// takes the record only when the stamp says h + 1. Zeroed memory therefore holds no record, and
// a writer about to overwrite an old record first sets its stamp to 0 ("invalidated").
//
// Memory layout (bytes_needed()): config line | writer line | wake line | one line per reader |
// data area (capacity bytes). All shared words are accessed through std::atomic_ref.
//
// History:
//  - keep_last: the writer never waits. A reader copies the record out, then re-reads its
//    stamp; the writer invalidates a record's stamp (then a release fence) before it writes a
//    byte over it, so a copy whose stamp is unchanged afterwards is whole: a torn read cannot
//    be delivered. A reader whose record was invalidated has been lapped: it counts an overrun
//    and skips ahead to the oldest record still intact.
//  - keep_all: the writer never passes the slowest active reader (write() says `full`), and
//    readers hand the record over in place (zero copy) before they advance their cursor.

#include "wake_line.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace netprof::shm {

enum class History : std::uint32_t { keep_last = 1, keep_all = 2 };

const char* to_string(History history) noexcept;

inline constexpr std::size_t record_alignment = cache_line;
inline constexpr std::size_t record_header_size = 16;
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
  return (record_header_size + length + record_alignment - 1) & ~std::uint64_t{record_alignment - 1};
}

struct alignas(cache_line) RingConfig {
  std::uint64_t capacity; // bytes in the data area, a power of two
  std::uint32_t readers;  // reader lines
  std::uint32_t history;  // History
};

struct alignas(cache_line) WriterLine {
  std::uint64_t tail;   // position after the last published record
  std::uint64_t oldest; // position of the oldest record not invalidated (where lapped readers go)
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

  // Writes the control lines of a new ring. Precondition: `memory` is 64-byte aligned, holds
  // bytes_needed() bytes and its data area is zero (a fresh mapping, or memset by the caller).
  // Readers start free, or active at position 0 when `readers_active` (a back ring whose one
  // reader exists before the writer). Returns nullopt when the arguments do not make a ring.
  static std::optional<RingView> format(std::span<std::byte> memory, std::size_t capacity,
                                        std::size_t readers, History history,
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

  std::uint64_t tail() const noexcept
  {
    return std::atomic_ref<std::uint64_t>(m_writer->tail).load(std::memory_order_acquire);
  }

  // Frees a reader's cursor from outside (its process died), so a keep_all writer stops
  // waiting for it. A reader still alive notices (dropped()) and re-attaches.
  void drop_reader(std::size_t index) const noexcept;

private:
  RingView(std::span<std::byte> memory, std::uint64_t capacity, std::size_t readers,
           History history) noexcept;

  WriterLine* m_writer = nullptr;
  WakeLine* m_wake = nullptr;
  ReaderLine* m_reader_lines = nullptr;
  std::byte* m_data = nullptr;
  std::uint64_t m_capacity = 0;
  std::size_t m_readers = 0;
  History m_history = History::keep_last;
};

enum class WriteResult {
  written,
  full,     // keep_all only: the slowest active reader has not made room yet
  too_large // longer than max_message_size()
};

// The single writer. Keeps its positions privately and publishes them; never allocates, locks
// or makes a syscall (waking readers is the caller's choice: ring(view.wake_line())).
class RingWriter {
public:
  // Takes over a ring at its published tail.
  explicit RingWriter(RingView ring) noexcept;

  WriteResult write(std::span<const std::byte> message) noexcept;

  // keep_all, after `full`: the active reader with the lowest head, the one to check for life.
  std::optional<std::size_t> slowest_reader() const noexcept;

  const RingView& view() const noexcept { return m_ring; }

private:
  bool has_room(std::uint64_t needed) noexcept;
  void claim(std::uint64_t position, std::uint64_t size) noexcept;
  void put_header(std::uint64_t position, std::uint64_t length, std::uint32_t type) noexcept;

  RingView m_ring;
  std::uint64_t m_mask;
  std::uint64_t m_tail;
  std::uint64_t m_oldest;
  std::uint64_t m_limit = 0; // keep_all: positions below this are known to be free
};

// One reader's cursor. Single-threaded, like the writer.
class RingReader {
public:
  // `copy_buffer`: keep_last copies each record here before it is delivered, so it must hold
  // max_message_size() bytes rounded up to 8; keep_all rings need none.
  RingReader(RingView ring, std::size_t index, std::span<std::uint64_t> copy_buffer) noexcept;

  // Claims this cursor (false if another reader holds it) and starts at the writer's tail.
  bool attach() noexcept;
  // Takes over a cursor that was formatted active (a back ring's reader), where it stands.
  void adopt() noexcept;
  // Frees the cursor, if it is still ours.
  void detach() noexcept;

  bool attached() const noexcept { return m_attached; }
  // True when the writer dropped our cursor (it thought our process dead).
  bool dropped() const noexcept;
  // True when the writer has published past our position (a record, or we were lapped).
  bool readable() const noexcept { return m_ring.tail() != m_head; }

  // Hands up to `max_records` records to deliver(std::span<const std::byte>) and returns how
  // many. Never blocks.
  template <typename Deliver>
  std::size_t read(Deliver&& deliver, std::size_t max_records) noexcept;

  std::uint64_t overruns() const noexcept { return m_overruns; }
  std::uint64_t bytes_skipped() const noexcept { return m_bytes_skipped; }
  std::uint64_t position() const noexcept { return m_head; }
  const RingView& view() const noexcept { return m_ring; }

private:
  enum class Next { empty, retry };
  // The stamp at our head is not ours: either nothing new, or the writer lapped us.
  Next resolve_mismatch() noexcept;
  void advance(std::uint64_t size) noexcept;
  // Leaves records unread (lapped, or a record that cannot be ours) and counts an overrun.
  void skip_to(std::uint64_t position) noexcept;

  RingView m_ring;
  std::size_t m_index;
  std::span<std::uint64_t> m_copy;
  std::uint64_t m_mask;
  std::uint64_t m_max_length;
  std::uint64_t m_head = 0;
  bool m_attached = false;
  std::uint64_t m_overruns = 0;
  std::uint64_t m_bytes_skipped = 0;
};

// ---- internals shared by the writer and the reader ------------------------------------------

namespace detail {

inline constexpr std::uint32_t type_data = 1;
inline constexpr std::uint32_t type_padding = 2;

inline std::atomic_ref<std::uint64_t> word(std::byte* data, std::uint64_t offset) noexcept
{
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(data + offset));
}

// Copies a record's payload out word by word with relaxed atomic loads: the writer may be
// overwriting it at this moment (keep_last), and the stamp check afterwards decides.
inline void load_words(const std::byte* source, std::uint64_t length, std::uint64_t* out) noexcept
{
  auto* words = reinterpret_cast<std::uint64_t*>(const_cast<std::byte*>(source));
  const std::uint64_t count = (length + 7) / 8;
  for (std::uint64_t i = 0; i < count; ++i)
    out[i] = std::atomic_ref<std::uint64_t>(words[i]).load(std::memory_order_relaxed);
}

} // namespace detail

template <typename Deliver>
std::size_t RingReader::read(Deliver&& deliver, std::size_t max_records) noexcept
{
  std::byte* const data = m_ring.data();
  const bool keep_all = m_ring.history() == History::keep_all;
  std::size_t delivered = 0;
  while (delivered < max_records) {
    const std::uint64_t head = m_head;
    const std::uint64_t offset = head & m_mask;
    if (detail::word(data, offset).load(std::memory_order_acquire) != head + 1) {
      if (resolve_mismatch() == Next::empty)
        break;
      continue;
    }
    const std::uint64_t info = detail::word(data, offset + 8).load(std::memory_order_relaxed);
    const std::uint64_t length = info & 0xffffffffu;
    const auto type = static_cast<std::uint32_t>(info >> 32);
    const std::uint64_t size = record_size(length);
    // A length no writer of ours would write can only be a record being overwritten under us
    // (keep_last); the stamp check below turns it into an overrun instead of a wild copy.
    const bool plausible = offset + size <= m_ring.capacity() &&
                           (type == detail::type_padding || length <= m_max_length);
    if (keep_all) {
      if (!plausible) {
        skip_to(m_ring.tail()); // only a foreign process writes such a record: resynchronise
        continue;
      }
      if (type == detail::type_data) {
        deliver(std::span<const std::byte>(data + offset + record_header_size, length));
        ++delivered;
      }
      advance(size);
      continue;
    }
    if (plausible && type == detail::type_data)
      detail::load_words(data + offset + record_header_size, length, m_copy.data());
    std::atomic_thread_fence(std::memory_order_acquire);
    if (detail::word(data, offset).load(std::memory_order_relaxed) != head + 1)
      continue; // overwritten while we copied: the next turn finds the mismatch
    if (!plausible) {
      skip_to(m_ring.tail()); // intact yet impossible: a foreign writer; resynchronise
      continue;
    }
    advance(size);
    if (type == detail::type_data) {
      deliver(std::span<const std::byte>(reinterpret_cast<const std::byte*>(m_copy.data()),
                                         length));
      ++delivered;
    }
  }
  return delivered;
}

} // namespace netprof::shm
