#pragma once

// Puts fragmented messages back together with bounded memory. Socket-free: the endpoint feeds
// it datagrams that carry the fragment magic, with their source and the time, and delivers what
// it completes.
//
// Bounds: at most `slots` messages in reassembly at once; each slot's buffer grows (never
// shrinks) to the largest message it has held, never beyond max_message_size; its fragment
// bitmap is allocated up front for the most fragments such a message can have. A message is
// delivered only when every fragment arrived; one that cannot complete is evicted (when a new
// message needs its slot, or when it got no fragment for `timeout`) and the core, seeing its
// sequence number missing, counts it as lost.

#include "fragment_header.hpp"

#include <netprof/clock.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace netprof::udp {

struct ReassemblyLimits {
  std::size_t max_message_size = 0;              // a fragment announcing more is dropped
  std::size_t slots = 4;                         // messages in reassembly at once
  Nanoseconds timeout = std::chrono::seconds(1); // idle time after which a partial is evicted
};

// Every fragment that is not part of a delivered message is counted under one reason.
struct ReassemblyCounters {
  std::uint64_t fragments = 0;        // fragments stored (including each message's last)
  std::uint64_t messages = 0;         // complete messages returned
  std::uint64_t malformed = 0;        // failed decode_fragment() (version, lengths, index...)
  std::uint64_t too_large = 0;        // announced a total beyond max_message_size
  std::uint64_t inconsistent = 0;     // disagreed with earlier fragments of the same message
  std::uint64_t duplicates = 0;       // a fragment the slot already had
  std::uint64_t late = 0;             // for a message already completed or evicted
  std::uint64_t out_of_memory = 0;    // a slot could not grow to the message
  std::uint64_t evicted_for_room = 0; // partial messages dropped for a newer message
  std::uint64_t evicted_stale = 0;    // partial messages dropped after the timeout
};

// A message the last accept() completed. The bytes stay valid until the next accept().
struct ReassembledMessage {
  std::span<const std::byte> bytes;
  std::uint32_t datagrams = 0; // fragments it arrived in
  std::size_t wire_bytes = 0;  // sum of those datagrams' sizes (headers included)
};

class Reassembler {
public:
  // Allocates the slots' bitmaps; message buffers grow on demand. Throws std::bad_alloc.
  explicit Reassembler(const ReassemblyLimits& limits);

  // Takes one datagram that has_fragment_magic(). `source` identifies the sending socket (the
  // endpoint packs its IPv4 address and port); message ids are only compared within a source.
  // Returns the message when this fragment completed it.
  std::optional<ReassembledMessage>
  accept(std::uint64_t source, std::span<const std::byte> datagram, Clock::time_point now) noexcept;

  // Evicts partial messages idle for the timeout. accept() does this too; call it when nothing
  // arrives, so the counters are current.
  void expire(Clock::time_point now) noexcept;

  const ReassemblyCounters& counters() const noexcept { return m_counters; }
  const ReassemblyLimits& limits() const noexcept { return m_limits; }
  std::size_t in_progress() const noexcept;
  // Bytes allocated for slot i's message buffer (for checking the memory bound).
  std::size_t slot_capacity(std::size_t i) const noexcept { return m_slots[i].capacity; }
  std::size_t slot_count() const noexcept { return m_slots.size(); }

private:
  struct Key {
    std::uint64_t source = 0;
    std::uint32_t message_id = 0;
    bool operator==(const Key&) const = default;
  };

  struct Slot {
    bool busy = false;
    Key key;
    std::uint32_t total = 0;
    std::uint32_t count = 0;
    std::uint32_t fragment_size = 0;
    std::uint32_t received = 0;
    std::size_t wire_bytes = 0;
    Clock::time_point last_activity{};
    std::unique_ptr<std::byte[]> buffer;
    std::size_t capacity = 0;
    std::unique_ptr<std::uint64_t[]> bitmap; // one bit per fragment
  };

  Slot* find(const Key& key) noexcept;
  Slot* slot_for(const Key& key, const DecodedFragment& fragment, Clock::time_point now) noexcept;
  Slot* start(const Key& key, const DecodedFragment& fragment, Clock::time_point now) noexcept;
  bool grow(Slot& slot, std::size_t size) noexcept;
  void evict(Slot& slot) noexcept;
  bool recently_finished(const Key& key) const noexcept;
  void remember_finished(const Key& key) noexcept;

  ReassemblyLimits m_limits;
  std::size_t m_bitmap_words = 0;
  std::vector<Slot> m_slots;
  // Messages completed or evicted lately: a fragment of one of them (a duplicate, or a straggler
  // of an evicted message) must not start a partial that can never complete.
  std::vector<Key> m_finished;
  std::size_t m_finished_next = 0;
  std::size_t m_finished_used = 0;
  ReassemblyCounters m_counters;
};

} // namespace netprof::udp
