#include "reassembler.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace netprof::udp {

namespace {

constexpr std::size_t bits_per_word = 64;

// Enough to catch the stragglers and duplicates of the last few messages of every slot.
std::size_t finished_memory(std::size_t slots)
{
  return std::max<std::size_t>(16, 4 * slots);
}

} // namespace

Reassembler::Reassembler(const ReassemblyLimits& limits)
    : m_limits(limits), m_slots(std::max<std::size_t>(limits.slots, 1)),
      m_finished(finished_memory(limits.slots))
{
  // decode_fragment() holds every fragment but the last to min_fragment_payload bytes, so no
  // message within the limit has more fragments than this.
  const std::size_t max_fragments = std::max<std::size_t>(
      1, (limits.max_message_size + min_fragment_payload - 1) / min_fragment_payload);
  m_bitmap_words = (max_fragments + bits_per_word - 1) / bits_per_word;
  for (Slot& slot : m_slots) {
    slot.bitmap = std::make_unique<std::uint64_t[]>(m_bitmap_words);
  }
}

std::size_t Reassembler::in_progress() const noexcept
{
  return static_cast<std::size_t>(
      std::count_if(m_slots.begin(), m_slots.end(), [](const Slot& slot) { return slot.busy; }));
}

std::optional<ReassembledMessage> Reassembler::accept(std::uint64_t source,
                                                      std::span<const std::byte> datagram,
                                                      Clock::time_point now) noexcept
{
  expire(now);

  DecodedFragment fragment;
  if (decode_fragment(datagram, fragment) != FragmentError::none) {
    ++m_counters.malformed;
    return std::nullopt;
  }
  const FragmentHeader& header = fragment.header;
  if (header.total > m_limits.max_message_size) {
    ++m_counters.too_large;
    return std::nullopt;
  }
  if (header.count == 1) {
    // Complete on arrival: delivered from the datagram itself, no slot needed.
    ++m_counters.fragments;
    ++m_counters.messages;
    return ReassembledMessage{fragment.payload, 1, datagram.size()};
  }

  const Key key{source, header.message_id};
  Slot* slot = slot_for(key, fragment, now);
  if (slot == nullptr) {
    return std::nullopt;
  }

  std::uint64_t& word = slot->bitmap[header.index / bits_per_word];
  const std::uint64_t bit = std::uint64_t{1} << (header.index % bits_per_word);
  if ((word & bit) != 0) {
    ++m_counters.duplicates;
    return std::nullopt;
  }
  word |= bit;
  std::memcpy(slot->buffer.get() + header.offset, fragment.payload.data(), fragment.payload.size());
  ++slot->received;
  slot->wire_bytes += datagram.size();
  slot->last_activity = now;
  ++m_counters.fragments;

  if (slot->received < slot->count) {
    return std::nullopt;
  }
  // The buffer is left as it is until a later accept() reuses the slot, so the bytes outlive
  // this call as promised.
  slot->busy = false;
  remember_finished(key);
  ++m_counters.messages;
  return ReassembledMessage{std::span<const std::byte>(slot->buffer.get(), slot->total),
                            slot->count, slot->wire_bytes};
}

// The slot collecting `key`'s fragments, started now if none is; null (counted) when the
// fragment does not fit the one there, belongs to a message already done, or finds no room.
Reassembler::Slot* Reassembler::slot_for(const Key& key, const DecodedFragment& fragment,
                                         Clock::time_point now) noexcept
{
  Slot* slot = find(key);
  if (slot != nullptr) {
    const FragmentHeader& header = fragment.header;
    if (slot->total != header.total || slot->count != header.count ||
        slot->fragment_size != fragment.fragment_size) {
      ++m_counters.inconsistent;
      return nullptr;
    }
    return slot;
  }
  if (recently_finished(key)) {
    ++m_counters.late;
    return nullptr;
  }
  return start(key, fragment, now);
}

void Reassembler::expire(Clock::time_point now) noexcept
{
  for (Slot& slot : m_slots) {
    if (slot.busy && now - slot.last_activity >= m_limits.timeout) {
      evict(slot);
      ++m_counters.evicted_stale;
    }
  }
}

Reassembler::Slot* Reassembler::find(const Key& key) noexcept
{
  for (Slot& slot : m_slots) {
    if (slot.busy && slot.key == key) {
      return &slot;
    }
  }
  return nullptr;
}

Reassembler::Slot* Reassembler::start(const Key& key, const DecodedFragment& fragment,
                                      Clock::time_point now) noexcept
{
  Slot* chosen = nullptr;
  for (Slot& slot : m_slots) {
    if (!slot.busy) {
      chosen = &slot;
      break;
    }
    // All busy so far: the one that has waited longest for a fragment is the least likely to
    // complete.
    if (chosen == nullptr || slot.last_activity < chosen->last_activity) {
      chosen = &slot;
    }
  }
  if (chosen->busy) {
    evict(*chosen);
    ++m_counters.evicted_for_room;
  }
  if (!grow(*chosen, fragment.header.total)) {
    ++m_counters.out_of_memory;
    return nullptr;
  }
  Slot& slot = *chosen;
  slot.busy = true;
  slot.key = key;
  slot.total = fragment.header.total;
  slot.count = fragment.header.count;
  slot.fragment_size = fragment.fragment_size;
  slot.received = 0;
  slot.wire_bytes = 0;
  slot.last_activity = now;
  const std::size_t words = (slot.count + bits_per_word - 1) / bits_per_word;
  std::fill_n(slot.bitmap.get(), std::min(words, m_bitmap_words), std::uint64_t{0});
  return &slot;
}

bool Reassembler::grow(Slot& slot, std::size_t size) noexcept
{
  if (size <= slot.capacity) {
    return true;
  }
  // Doubling keeps reallocations rare while sizes creep up; the cap keeps the memory bound.
  const std::size_t capacity =
      std::min(m_limits.max_message_size, std::max(size, 2 * slot.capacity));
  try {
    // Not value-initialised: every byte is written by a fragment before it is read.
    slot.buffer = std::make_unique_for_overwrite<std::byte[]>(capacity);
  } catch (const std::bad_alloc&) {
    slot.buffer.reset();
    slot.capacity = 0;
    return false;
  }
  slot.capacity = capacity;
  return true;
}

void Reassembler::evict(Slot& slot) noexcept
{
  slot.busy = false;
  remember_finished(slot.key);
}

bool Reassembler::recently_finished(const Key& key) const noexcept
{
  const auto end = m_finished.begin() + static_cast<std::ptrdiff_t>(m_finished_used);
  return std::find(m_finished.begin(), end, key) != end;
}

void Reassembler::remember_finished(const Key& key) noexcept
{
  m_finished[m_finished_next] = key;
  m_finished_next = (m_finished_next + 1) % m_finished.size();
  m_finished_used = std::min(m_finished_used + 1, m_finished.size());
}

} // namespace netprof::udp
