#pragma once

// Sleeping without costing the side that never sleeps. A WakeLine is one cache line in shared
// memory: a count of sleepers and a 32-bit doorbell that sleepers FUTEX_WAIT on. A writer
// rings it after publishing, but only makes the syscall when the count says someone sleeps,
// so a busy-polling reader costs the writer one locked instruction on a line it already has.

#include <netprof/clock.hpp>

#include <atomic>
#include <cstdint>

namespace netprof::shm {

inline constexpr std::size_t cache_line = 64;

struct alignas(cache_line) WakeLine {
  std::uint32_t sleepers; // threads inside wait(), any process
  std::uint32_t doorbell; // bumped on every ring() that found a sleeper; the futex word
};

static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
static_assert(sizeof(WakeLine) == cache_line);

// After publishing (a store with release): wakes every sleeper, if there is one. It reads the
// sleeper count with a read-modify-write, as wait() registers with one: of two RMWs on one
// word, the later reads from the earlier, so either the sleeper's recheck sees what was
// published, or this sees the sleeper. (RMWs rather than fences: ThreadSanitizer models them.)
void ring(WakeLine& line) noexcept;

// ring() with a plain load, for a send that a ring() (the endpoint's flush) will follow: a
// sleeper registering at this very moment may be missed until then, but a stream of sends
// pays one load of a line it already has instead of a locked instruction.
void ring_if_sleeping(WakeLine& line) noexcept;

// Sleeps until ring() or the timeout, unless `ready()` is already true once this thread is
// registered as a sleeper. May return early (spurious wake, signal); callers loop on their
// own deadline. Returns ready()'s last value.
template <typename Ready> bool wait(WakeLine& line, Ready&& ready, Nanoseconds timeout) noexcept;

// The raw futex calls, on a 32-bit word that may live in memory shared between processes
// (so never FUTEX_PRIVATE_FLAG).
void futex_wait(std::uint32_t& word, std::uint32_t expected, Nanoseconds timeout) noexcept;
void futex_wake_all(std::uint32_t& word) noexcept;

template <typename Ready> bool wait(WakeLine& line, Ready&& ready, Nanoseconds timeout) noexcept
{
  std::atomic_ref<std::uint32_t> sleepers(line.sleepers);
  const std::uint32_t doorbell =
      std::atomic_ref<std::uint32_t>(line.doorbell).load(std::memory_order_acquire);
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  const bool already = ready();
  if (!already)
    futex_wait(line.doorbell, doorbell, timeout);
  sleepers.fetch_sub(1, std::memory_order_relaxed);
  return already || ready();
}

} // namespace netprof::shm
