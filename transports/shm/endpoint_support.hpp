#pragma once

// What the shared-memory publisher and subscriber endpoints both use.

#include "ring.hpp"
#include "segment.hpp"

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>

namespace netprof::shm {

// Blocking waits are capped so that a caller passing Nanoseconds::max() cannot overflow.
inline constexpr Nanoseconds longest_wait = std::chrono::hours(24);

inline std::uint64_t slot_bit(std::size_t index) noexcept
{
  return std::uint64_t{1} << index;
}

// Wire bytes are the ring bytes a record took: header and padding to 64 B included. The ring
// names no sender: a subscriber hears only its publisher, which reaches every subscriber.
inline Delivery delivery_of(std::span<const std::byte> message) noexcept
{
  return Delivery{message, 1, record_size(message.size()), PeerHandle{}};
}

// Why an endpoint gave up for good (a segment it must not use, or one truncated under it): said
// once on stderr when the core first hears of it, and kept for the report's notes.
class Failure {
public:
  bool happened() const noexcept { return m_happened; }
  const std::string& reason() const noexcept { return m_reason; }
  // The first failure stands; `describe()` builds its line (if even that fails, it still
  // counts).
  template <typename Describe> void record(Describe&& describe) noexcept
  {
    if (m_happened)
      return;
    m_happened = true;
    try {
      m_reason = describe();
    } catch (...) {
    }
  }
  void announce() noexcept;

private:
  bool m_happened = false;
  bool m_announced = false;
  std::string m_reason;
};

// gave_up() once there is something to look into: records and announces the failure.
bool settle_failure(const Segment* segment, const std::string& name, bool check_size,
                    Failure& failure) noexcept;

// True once the endpoint has given up: `failure` holds a reason, or `segment` (if any) was
// truncated under it (Segment::lost; with `check_size` also Segment::shrunk, an fstat).
// Announces the failure the first time it answers true. Off the per-message path: idle polls,
// health checks and back-pressure call it, and without `check_size` it costs two loads.
inline bool gave_up(const Segment* segment, const std::string& name, bool check_size,
                    Failure& failure) noexcept
{
  if (!failure.happened() && !check_size && (segment == nullptr || !segment->lost()))
    return false;
  return settle_failure(segment, name, check_size, failure);
}

// The report's notes on how endpoints wait, on the history policy and on the ring's size.
std::string strategy_note();
// How to carry a larger message, for the message that refuses -s: the option that raises it.
inline constexpr const char* ring_size_hint =
    "a message may take half the ring: a larger -q makes a larger ring, e.g. -q 64M";
std::string history_note(History history);
void add_ring_facts(EndpointFacts& facts, const RingView& ring);

} // namespace netprof::shm
