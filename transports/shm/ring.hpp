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
//   record:  header u64 | payload, padded to 64 B
//   header:  (tag << 32 | padding flag << 31 | length) XOR salt
//
// One 8-byte header, so that a 64 B netprof payload (116 B with netprof's own header) takes two
// cache lines: each line is one more transfer between cores. An echo (76 B since it carries the
// subscriber's two stamps) takes two as well; a bare header echo (60 B) took one. The tag is
// the record's position in 64 B units, plus one, modulo 2^32 - 1 (never 0); the header is stored
// last (release), in one atomic store, and a reader at position h takes the record only when
// the tag is h's. The salt is a random 64-bit value chosen when the ring is formatted: format()
// writes a header of the lap before the first at every 64 B offset, and payload bytes left over
// from another lap would have to contain this exact salted value to pass for a header. A
// keep_last writer about to overwrite an old record first invalidates that record's header
// (tag 0); a keep_all writer never comes within a lap of a reader, so it has nothing to guard.
// The memory's layout, and RingView over it, are in ring_layout.hpp.
//
// History:
//  - keep_last: the writer never waits. A reader copies the record out (record_copy.hpp: loads
//    ordered before what follows), then re-reads its header; the writer invalidates a record's
//    header before it writes a byte over it (release stores), so a copy whose header is
//    unchanged afterwards is whole: a reader that loaded any new byte also sees the
//    invalidation. A torn read cannot be delivered. A reader whose record was invalidated has
//    been lapped: it counts an overrun and skips ahead to the oldest record still intact.
//  - keep_all: the writer never passes the slowest active reader (write() says `full`), and
//    readers hand the record over in place (zero copy) before they advance their cursor.

#include "record_copy.hpp"
#include "ring_layout.hpp"
#include "wake_line.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace netprof::shm {

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

  // Lending (ring_lend.cpp): room for a record of `length` bytes, written in place by the
  // caller and published by commit_lent(), or given back by abandon_lent(); one at a time, and
  // no write() while one is out. `result` says why `bytes` is empty.
  struct Lent {
    std::span<std::byte> bytes;
    bool holds_payload = false; // the same bytes as the record lent here a lap ago (see m_run)
    WriteResult result = WriteResult::written;
  };
  Lent lend(std::size_t length) noexcept;
  void commit_lent() noexcept;
  void abandon_lent() noexcept;

  // Before a write() that may come soon: asks the processor to take the line the next record's
  // header goes to for writing now (PREFETCHW), so that write's stores need not wait for a
  // reader's core to give the line up. A reader polling that line takes it back, so this pays
  // only just before a write. Changes nothing anyone reads.
  void prepare_next_record() const noexcept;

  // keep_all, after `full`: the active reader with the lowest head, the one to check for life.
  std::optional<std::size_t> slowest_reader() const noexcept;

  const RingView& view() const noexcept { return m_ring; }

private:
  // The records since `start` (a lap's offset 0) were all lent and committed with `length`
  // bytes: every lap since lays them out alike, so a record lent at position p holds what was
  // committed at p - capacity once p - capacity >= start. Anything else written breaks it.
  struct LentRun {
    std::uint64_t start = 0;
    std::uint64_t length = 0;
    bool active = false;
  };

  bool has_room(std::uint64_t needed) noexcept;
  // Room for a record of `length` bytes at m_tail: padding placed in front of it where it would
  // straddle the end, and (keep_last) what it overwrites invalidated. Then close_record().
  WriteResult open_record(std::uint64_t length) noexcept;
  // Publishes the record of `length` bytes at m_tail, its bytes written.
  void close_record(std::uint64_t length) noexcept;
  void claim(std::uint64_t position, std::uint64_t size) noexcept;
  void put_header(std::uint64_t position, std::uint64_t length, bool padding) noexcept;

  RingView m_ring;
  std::uint64_t m_mask;
  std::uint64_t m_tail;
  std::uint64_t m_oldest;
  std::uint64_t m_limit = 0; // keep_all: positions below this are known to be free
  LentRun m_run;
  std::uint64_t m_lent_length = 0; // of the record lent and not yet committed
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
  bool readable() const noexcept { return m_ring.tail() > m_head; }

  // Hands up to `max_records` records to deliver(std::span<const std::byte>) and returns how
  // many. Never blocks.
  template <typename Deliver> std::size_t read(Deliver&& deliver, std::size_t max_records) noexcept;

  std::uint64_t overruns() const noexcept { return m_overruns; }
  std::uint64_t bytes_skipped() const noexcept { return m_bytes_skipped; }
  std::uint64_t position() const noexcept { return m_head; }
  const RingView& view() const noexcept { return m_ring; }

private:
  enum class Next { empty, retry };
  // After a look at our head: go on reading, or stop (nothing more now).
  enum class Step { next, stop };
  // The header at our head is not our record's: nothing yet, or we were lapped.
  Step on_other_tag(std::uint32_t tag, std::size_t& retries) noexcept;
  // Our record is at our head: delivers it (unless padding) and moves past it.
  template <typename Deliver>
  Step take(std::uint64_t header, std::uint64_t offset, Deliver& deliver,
            std::size_t& delivered) noexcept;
  // What the header at our head says, when it is not our record.
  enum class Seen { not_yet, lapped, unknown };
  Seen classify(std::uint32_t tag) const noexcept
  {
    // The previous lap's record here: the writer has not come round yet. The common case of
    // an empty poll, so it costs one compare.
    return tag == m_tags.before ? Seen::not_yet : classify_rare(tag);
  }
  Seen classify_rare(std::uint32_t tag) const noexcept;
  // The tags a header at our head may carry: ours, and the previous lap's. Kept with the head
  // so that an empty poll computes nothing.
  struct Tags {
    std::uint32_t here = 0;
    std::uint32_t before = 0;
  };
  Tags tags_at(std::uint64_t position) const noexcept;
  // The header at our head is not ours: either nothing new, or the writer lapped us.
  Next resolve_mismatch() noexcept;
  void advance(std::uint64_t size) noexcept;
  // Leaves records unread (lapped, or a record that cannot be ours) and counts an overrun.
  // False (and nothing done) unless `position` is ahead of us.
  bool skip_to(std::uint64_t position) noexcept;
  // Empty polls since the last record: only every 16th looks at the writer's tail.
  std::uint32_t m_misses = 0;

  RingView m_ring;
  std::size_t m_index;
  std::span<std::uint64_t> m_copy;
  std::uint64_t m_mask;
  std::uint64_t m_max_length;
  std::uint64_t m_head = 0;
  Tags m_tags;
  bool m_attached = false;
  std::uint64_t m_overruns = 0;
  std::uint64_t m_bytes_skipped = 0;
};

// ---- internals shared by the writer and the reader ------------------------------------------

namespace detail {

inline std::atomic_ref<std::uint64_t> word(std::byte* data, std::uint64_t offset) noexcept
{
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(data + offset));
}

} // namespace detail

inline RingReader::Step RingReader::on_other_tag(std::uint32_t tag, std::size_t& retries) noexcept
{
  // The writer's tail would settle "nothing yet" against "lapped", but it is a line the writer
  // stores for every record: reading it at each empty poll would pull it away from the writer
  // every time. Usually the header itself tells; when it cannot (old payload bytes lie there),
  // a busy-polling reader looks at the tail every 16th poll.
  const Seen seen = classify(tag);
  if (seen == Seen::not_yet || (seen == Seen::unknown && (++m_misses & 15) != 0)) {
    // The next record's second line: the writer stores it before the header, so fetching it
    // while we wait overlaps its transfer with the header's.
    __builtin_prefetch(m_ring.data() + ((m_head + record_alignment) & m_mask));
    return Step::stop;
  }
  return resolve_mismatch() == Next::empty || --retries == 0 ? Step::stop : Step::next;
}

template <typename Deliver>
RingReader::Step RingReader::take(std::uint64_t header, std::uint64_t offset, Deliver& deliver,
                                  std::size_t& delivered) noexcept
{
  m_misses = 0;
  std::byte* const data = m_ring.data();
  const std::uint64_t length = m_ring.length_of(header);
  const bool padding = m_ring.is_padding(header);
  const std::uint64_t size = record_size(length);
  // A length no writer of ours would write can only be a record being overwritten under us
  // (keep_last); the header check below turns it into an overrun instead of a wild copy. One
  // that stays (keep_all, or intact after the copy) comes from a foreign process:
  // resynchronise at the tail.
  const bool plausible = offset + size <= m_ring.capacity() && (padding || length <= m_max_length);
  if (m_ring.history() == History::keep_all) {
    if (!plausible)
      return skip_to(m_ring.tail()) ? Step::next : Step::stop;
    if (!padding) {
      deliver(std::span<const std::byte>(data + offset + record_header_size, length));
      ++delivered;
    }
    advance(size);
    return Step::next;
  }
  if (plausible && !padding)
    copy_racing_writer(data + offset + record_header_size, length, m_copy.data());
  if (detail::word(data, offset).load(std::memory_order_acquire) != header)
    return Step::next; // overwritten while we copied: the next turn finds the mismatch
  if (!plausible)
    return skip_to(m_ring.tail()) ? Step::next : Step::stop;
  advance(size);
  if (!padding) {
    deliver(std::span<const std::byte>(reinterpret_cast<const std::byte*>(m_copy.data()), length));
    ++delivered;
  }
  return Step::next;
}

template <typename Deliver>
std::size_t RingReader::read(Deliver&& deliver, std::size_t max_records) noexcept
{
  std::size_t delivered = 0;
  // Bounds the turns spent catching up with a writer that keeps lapping us.
  std::size_t retries = max_records + 8;
  while (delivered < max_records) {
    const std::uint64_t offset = m_head & m_mask;
    const std::uint64_t header =
        detail::word(m_ring.data(), offset).load(std::memory_order_acquire);
    const std::uint32_t tag = m_ring.tag_of(header);
    const Step step =
        tag == m_tags.here ? take(header, offset, deliver, delivered) : on_other_tag(tag, retries);
    if (step == Step::stop)
      break;
  }
  return delivered;
}

} // namespace netprof::shm
