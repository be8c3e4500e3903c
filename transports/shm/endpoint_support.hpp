#pragma once

// What the shared-memory publisher and subscriber endpoints both use.

#include "ring.hpp"

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

template <typename T> std::atomic_ref<T> shared(T& value) noexcept
{
  return std::atomic_ref<T>(value);
}

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

// The report's notes on how endpoints wait, on the history policy and on the ring's size.
std::string strategy_note();
std::string history_note(History history);
void add_ring_facts(EndpointFacts& facts, const RingView& ring);

} // namespace netprof::shm
