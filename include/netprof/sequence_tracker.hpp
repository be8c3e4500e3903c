#pragma once

// Loss, gaps, duplicates and reordering from per-publisher sequence numbers, in fixed memory:
// a sliding window of recently seen sequence numbers decides duplicate vs late arrival.

#include <cstdint>
#include <vector>

namespace netprof {

class SequenceTracker {
public:
  // Sequence numbers older than `window` behind the highest seen are counted as out of order
  // without a duplicate check (they are too old to remember), so a duplicate that late counts
  // as a late unique arrival. `window` is rounded up to a power of two; throws
  // std::invalid_argument above 2^40 (a 128 GiB bitmap is never what was meant).
  // The first sequence number observed is the baseline (a late joiner has no gap for what it
  // missed; lost() still counts it); lower numbers arriving afterwards are out of order.
  explicit SequenceTracker(std::uint64_t window = 1u << 16);

  // Never allocates.
  void observe(std::uint64_t sequence) noexcept;

  std::uint64_t received() const noexcept; // every observe() call
  std::uint64_t unique() const noexcept;   // distinct sequence numbers
  std::uint64_t duplicates() const noexcept;
  std::uint64_t out_of_order() const noexcept; // arrived after a higher sequence number
  std::uint64_t gaps() const noexcept;         // forward jumps of more than one
  // Messages the publisher sent that never arrived: sent - unique (0 if unique > sent).
  std::uint64_t lost(std::uint64_t sent) const noexcept;

private:
  bool seen(std::uint64_t sequence) const noexcept;
  void mark(std::uint64_t sequence) noexcept;
  // Forget `count` (<= window) consecutive sequence numbers starting at `first`.
  void forget(std::uint64_t first, std::uint64_t count) noexcept;

  std::vector<std::uint64_t> m_seen_bits; // window bits, indexed by sequence % window
  std::uint64_t m_window;
  bool m_any = false;
  std::uint64_t m_highest = 0;
  std::uint64_t m_received = 0;
  std::uint64_t m_unique = 0;
  std::uint64_t m_duplicates = 0;
  std::uint64_t m_out_of_order = 0;
  std::uint64_t m_gaps = 0;
};

} // namespace netprof
