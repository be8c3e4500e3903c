#include "ring.hpp"

#include <algorithm>
#include <bit>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace netprof::shm {

namespace {

constexpr std::size_t max_readers = 4096;

// Stores a message into the data area word by word with release stores (plain stores on x86):
// in keep_last a lapped reader may be copying these very words, and each carries the
// invalidation stored before it, which the reader's header check then sees. The last word is
// padded with zeros (the record's size is a multiple of 64, so the word is ours).
void store_words(std::byte* destination, std::span<const std::byte> message) noexcept
{
  auto* words = reinterpret_cast<std::uint64_t*>(destination);
  const std::size_t full = message.size() / 8;
  for (std::size_t i = 0; i < full; ++i) {
    std::uint64_t value;
    std::memcpy(&value, message.data() + i * 8, 8);
    shared(words[i]).store(value, std::memory_order_release);
  }
  const std::size_t rest = message.size() % 8;
  if (rest != 0) {
    std::uint64_t value = 0;
    std::memcpy(&value, message.data() + full * 8, rest);
    shared(words[full]).store(value, std::memory_order_release);
  }
}

// Takes a line for writing: PREFETCHW on x86, where a plain prefetch would only fetch it shared
// and the store would still wait for the upgrade. (Written out: GCC emits PREFETCHW only in code
// built for a processor that has it, and it dropped calls to such a function, holding nothing
// but the prefetch, as if they did nothing.)
void prefetch_for_write(const std::byte* line) noexcept
{
#if defined(__x86_64__)
  // Asked of CPUID itself: clang's __builtin_cpu_supports knows no "prfchw".
  static const bool available = [] {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_PRFCHW) != 0;
  }();
  if (available)
    asm volatile("prefetchw %0" : : "m"(*line));
#else
  __builtin_prefetch(line, 1, 3);
#endif
}

} // namespace

const char* to_string(History history) noexcept
{
  return history == History::keep_all ? "keep-all" : "keep-last";
}

// ---- RingView -------------------------------------------------------------------------------

std::size_t RingView::bytes_needed(std::size_t capacity, std::size_t readers) noexcept
{
  return sizeof(RingConfig) + sizeof(WriterLine) + sizeof(WakeLine) + readers * sizeof(ReaderLine) +
         capacity;
}

RingView::RingView(std::span<std::byte> memory, std::uint64_t capacity, std::size_t readers,
                   History history, std::uint64_t salt) noexcept
    : m_capacity(capacity), m_salt(salt), m_readers(readers), m_history(history)
{
  std::byte* base = memory.data();
  m_writer = reinterpret_cast<WriterLine*>(base + sizeof(RingConfig));
  m_wake = reinterpret_cast<WakeLine*>(base + sizeof(RingConfig) + sizeof(WriterLine));
  m_reader_lines = reinterpret_cast<ReaderLine*>(base + sizeof(RingConfig) + sizeof(WriterLine) +
                                                 sizeof(WakeLine));
  m_data = base + bytes_needed(0, readers);
}

std::optional<RingView> RingView::format(std::span<std::byte> memory, std::size_t capacity,
                                         std::size_t readers, History history, std::uint64_t salt,
                                         bool readers_active) noexcept
{
  const bool aligned = reinterpret_cast<std::uintptr_t>(memory.data()) % cache_line == 0;
  if (!aligned || !std::has_single_bit(capacity) || capacity < min_ring_capacity ||
      capacity > max_ring_capacity || readers == 0 || readers > max_readers ||
      memory.size() < bytes_needed(capacity, readers))
    return std::nullopt;

  auto* config = reinterpret_cast<RingConfig*>(memory.data());
  config->capacity = capacity;
  config->readers = static_cast<std::uint32_t>(readers);
  config->history = static_cast<std::uint32_t>(history);
  config->salt = salt;
  RingView view(memory, capacity, readers, history, salt);
  shared(view.m_writer->tail).store(0, std::memory_order_relaxed);
  shared(view.m_writer->oldest).store(0, std::memory_order_relaxed);
  shared(view.m_wake->sleepers).store(0, std::memory_order_relaxed);
  shared(view.m_wake->doorbell).store(0, std::memory_order_relaxed);
  // As if a lap of 64 B padding records had gone before position 0 (positions wrap below 0).
  for (std::uint64_t offset = 0; offset < capacity; offset += record_alignment)
    detail::word(view.m_data, offset)
        .store(view.seal(offset - capacity, record_alignment - record_header_size, true),
               std::memory_order_relaxed);
  const auto state = readers_active ? ReaderState::active : ReaderState::free;
  for (std::size_t i = 0; i < readers; ++i) {
    shared(view.m_reader_lines[i].head).store(0, std::memory_order_relaxed);
    shared(view.m_reader_lines[i].state)
        .store(static_cast<std::uint32_t>(state), std::memory_order_relaxed);
  }
  // Whoever makes the ring known to others (the segment's ready flag, a thread start)
  // publishes these with its own release.
  return view;
}

std::optional<RingView> RingView::open(std::span<std::byte> memory) noexcept
{
  const bool aligned = reinterpret_cast<std::uintptr_t>(memory.data()) % cache_line == 0;
  if (!aligned || memory.size() < sizeof(RingConfig))
    return std::nullopt;
  const auto* config = reinterpret_cast<const RingConfig*>(memory.data());
  const std::uint64_t capacity = config->capacity;
  const std::size_t readers = config->readers;
  const std::uint32_t history = config->history;
  const bool known_history = history == static_cast<std::uint32_t>(History::keep_last) ||
                             history == static_cast<std::uint32_t>(History::keep_all);
  if (!std::has_single_bit(capacity) || capacity < min_ring_capacity ||
      capacity > max_ring_capacity || readers == 0 || readers > max_readers || !known_history ||
      memory.size() < bytes_needed(capacity, readers))
    return std::nullopt;
  return RingView(memory, capacity, readers, static_cast<History>(history), config->salt);
}

void RingView::drop_reader(std::size_t index) const noexcept
{
  shared(m_reader_lines[index].state)
      .store(static_cast<std::uint32_t>(ReaderState::free), std::memory_order_release);
}

// ---- RingWriter -----------------------------------------------------------------------------

RingWriter::RingWriter(RingView ring) noexcept
    : m_ring(ring), m_mask(ring.capacity() - 1),
      m_tail(shared(ring.writer_line().tail).load(std::memory_order_acquire)),
      m_oldest(shared(ring.writer_line().oldest).load(std::memory_order_acquire))
{
}

void RingWriter::put_header(std::uint64_t position, std::uint64_t length, bool padding) noexcept
{
  detail::word(m_ring.data(), position & m_mask)
      .store(m_ring.seal(position, length, padding), std::memory_order_release);
}

void RingWriter::claim(std::uint64_t position, std::uint64_t size) noexcept
{
  if (m_ring.history() == History::keep_all)
    return; // no reader is ever within a lap of us: nothing of theirs to invalidate
  const std::uint64_t end = position + size;
  if (end <= m_ring.capacity())
    return; // the first lap overwrites nothing
  const std::uint64_t bound = end - m_ring.capacity();
  if (m_oldest >= bound)
    return;
  std::byte* data = m_ring.data();
  while (m_oldest < bound) {
    const std::uint64_t offset = m_oldest & m_mask;
    const std::uint64_t header = detail::word(data, offset).load(std::memory_order_relaxed);
    detail::word(data, offset).store(m_ring.invalid_header(), std::memory_order_relaxed);
    m_oldest += record_size(m_ring.length_of(header));
  }
  // The stores that follow (release) carry these invalidations to any reader that sees them.
  shared(m_ring.writer_line().oldest).store(m_oldest, std::memory_order_release);
}

bool RingWriter::has_room(std::uint64_t needed) noexcept
{
  if (m_tail + needed <= m_limit)
    return true;
  // Pairs with the RMW in RingReader::attach: of two RMWs on the tail the later reads from the
  // earlier, so either we see the new reader, or it starts at a tail no older than ours.
  shared(m_ring.writer_line().tail).fetch_add(0, std::memory_order_seq_cst);
  std::uint64_t lowest = m_tail;
  for (std::size_t i = 0; i < m_ring.readers(); ++i) {
    ReaderLine& line = m_ring.reader_line(i);
    if (shared(line.state).load(std::memory_order_acquire) ==
        static_cast<std::uint32_t>(ReaderState::active))
      lowest = std::min(lowest, shared(line.head).load(std::memory_order_acquire));
  }
  m_limit = lowest + m_ring.capacity();
  return m_tail + needed <= m_limit;
}

std::optional<std::size_t> RingWriter::slowest_reader() const noexcept
{
  std::optional<std::size_t> slowest;
  std::uint64_t lowest = m_tail;
  for (std::size_t i = 0; i < m_ring.readers(); ++i) {
    ReaderLine& line = m_ring.reader_line(i);
    if (shared(line.state).load(std::memory_order_acquire) !=
        static_cast<std::uint32_t>(ReaderState::active))
      continue;
    const std::uint64_t head = shared(line.head).load(std::memory_order_acquire);
    if (head < lowest || !slowest) {
      lowest = head;
      slowest = i;
    }
  }
  return slowest;
}

void RingWriter::prepare_next_record() const noexcept
{
  prefetch_for_write(m_ring.data() + (m_tail & m_mask));
}

WriteResult RingWriter::open_record(std::uint64_t length) noexcept
{
  if (length > m_ring.max_message_size())
    return WriteResult::too_large;
  const std::uint64_t size = record_size(length);
  const std::uint64_t capacity = m_ring.capacity();
  const std::uint64_t offset = m_tail & m_mask;
  const std::uint64_t padding = offset + size > capacity ? capacity - offset : 0;
  if (m_ring.history() == History::keep_all && !has_room(padding + size))
    return WriteResult::full;
  if (padding != 0) {
    claim(m_tail, padding);
    put_header(m_tail, padding - record_header_size, true);
    m_tail += padding;
  }
  claim(m_tail, size);
  return WriteResult::written;
}

void RingWriter::close_record(std::uint64_t length) noexcept
{
  put_header(m_tail, length, false);
  m_tail += record_size(length);
  shared(m_ring.writer_line().tail).store(m_tail, std::memory_order_release);
}

WriteResult RingWriter::write(std::span<const std::byte> message) noexcept
{
  const std::uint64_t length = message.size();
  if (const WriteResult opened = open_record(length); opened != WriteResult::written)
    return opened;
  m_run.active = false; // a copy of anything: no lent payload lies here any more
  // The record's first line, which holds its header and which readers poll, is written last
  // (keep_last marks the old record there invalid first, see claim): a reader polling that line
  // then takes it from us once more, not between every line of the record.
  std::byte* payload = m_ring.data() + (m_tail & m_mask) + record_header_size;
  const std::size_t in_first_line =
      std::min<std::size_t>(length, record_alignment - record_header_size);
  if (m_ring.history() == History::keep_all) {
    // No reader is within a lap of us: nobody races us.
    std::memcpy(payload + in_first_line, message.data() + in_first_line, length - in_first_line);
    std::memcpy(payload, message.data(), in_first_line);
  } else {
    store_words(payload + in_first_line, message.subspan(in_first_line));
    store_words(payload, message.first(in_first_line));
  }
  close_record(length);
  return WriteResult::written;
}

// ---- RingReader -----------------------------------------------------------------------------

RingReader::RingReader(RingView ring, std::size_t index,
                       std::span<std::uint64_t> copy_buffer) noexcept
    : m_ring(ring), m_index(index), m_copy(copy_buffer), m_mask(ring.capacity() - 1),
      m_max_length(ring.max_message_size())
{
  // Without room to copy, keep_last cannot deliver anything safely: refuse every record.
  if (ring.history() == History::keep_last && copy_buffer.size() * 8 < m_max_length)
    m_max_length = copy_buffer.size() * 8;
  m_tags = tags_at(m_head);
}

bool RingReader::attach() noexcept
{
  ReaderLine& line = m_ring.reader_line(m_index);
  auto state = static_cast<std::uint32_t>(ReaderState::free);
  if (!shared(line.state)
           .compare_exchange_strong(state, static_cast<std::uint32_t>(ReaderState::reserved),
                                    std::memory_order_acq_rel))
    return false;
  shared(line.head).store(m_ring.tail(), std::memory_order_relaxed);
  shared(line.state)
      .store(static_cast<std::uint32_t>(ReaderState::active), std::memory_order_release);
  // Pairs with RingWriter::has_room: a writer that did not see us active yet cannot have
  // overwritten anything at or after the tail we read now (an RMW, so that it is ordered
  // with the writer's).
  m_head = shared(m_ring.writer_line().tail).fetch_add(0, std::memory_order_seq_cst);
  m_tags = tags_at(m_head);
  shared(line.head).store(m_head, std::memory_order_release);
  m_attached = true;
  return true;
}

void RingReader::adopt() noexcept
{
  m_head = shared(m_ring.reader_line(m_index).head).load(std::memory_order_acquire);
  m_tags = tags_at(m_head);
  m_attached = true;
}

void RingReader::detach() noexcept
{
  if (!m_attached)
    return;
  m_attached = false;
  if (!dropped())
    m_ring.drop_reader(m_index);
}

bool RingReader::dropped() const noexcept
{
  return shared(m_ring.reader_line(m_index).state).load(std::memory_order_acquire) !=
         static_cast<std::uint32_t>(ReaderState::active);
}

void RingReader::advance(std::uint64_t size) noexcept
{
  m_head += size;
  m_tags = tags_at(m_head);
  shared(m_ring.reader_line(m_index).head).store(m_head, std::memory_order_release);
}

bool RingReader::skip_to(std::uint64_t position) noexcept
{
  if (position <= m_head)
    return false; // a tail that lags the header we followed: nothing to skip
  ++m_overruns;
  m_bytes_skipped += position - m_head;
  m_head = position;
  m_tags = tags_at(m_head);
  shared(m_ring.reader_line(m_index).head).store(m_head, std::memory_order_release);
  return true;
}

RingReader::Tags RingReader::tags_at(std::uint64_t position) const noexcept
{
  return {RingView::tag(position), RingView::tag(position - m_ring.capacity())};
}

RingReader::Seen RingReader::classify_rare(std::uint32_t tag) const noexcept
{
  if (tag == 0)
    return Seen::lapped; // invalidated: the writer is overwriting our record
  // A record header of a later lap at our offset: lapped. The distance in 64 B units is then a
  // positive multiple of a lap (small next to the tag's range, unlike one that went backwards).
  const std::uint64_t lap = m_ring.capacity() / record_alignment;
  const std::uint64_t ahead =
      (std::uint64_t{tag} + RingView::tag_modulus - m_tags.here) % RingView::tag_modulus;
  if (ahead != 0 && ahead % lap == 0 && ahead < RingView::tag_modulus / 2)
    return Seen::lapped;
  return Seen::unknown; // payload bytes of some lap: ask the tail
}

RingReader::Next RingReader::resolve_mismatch() noexcept
{
  // The writer stores a record's header before the tail, so a reader may be a record ahead of
  // the tail it sees: that is "nothing new" too, never a reason to go back.
  const std::uint64_t tail = m_ring.tail();
  if (tail <= m_head)
    return Next::empty;
  // Published past us: our record may have landed between the two loads...
  const std::uint64_t offset = m_head & m_mask;
  if (m_ring.sealed_at(detail::word(m_ring.data(), offset).load(std::memory_order_acquire), m_head))
    return Next::retry;
  // ...or it was invalidated: the writer lapped us. The oldest intact record is where the
  // writer's invalidation stopped; if that is not yet visible, the tail is always safe.
  const std::uint64_t oldest = shared(m_ring.writer_line().oldest).load(std::memory_order_acquire);
  skip_to(oldest > m_head && oldest <= tail ? oldest : tail);
  return Next::retry;
}

} // namespace netprof::shm
