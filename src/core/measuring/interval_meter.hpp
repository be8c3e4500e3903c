#pragma once

#include <netprof/clock.hpp>
#include <netprof/histogram.hpp>
#include <netprof/send_accounting.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace netprof {

// Running totals since the measured phase began, as the measured loop knows them when it
// closes an interval; the reporter turns two of them into one interval's figures.
struct IntervalTotals {
  std::uint64_t messages = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t missing = 0; // subscriber: numbers up to the highest seen that did not arrive
  std::uint64_t echoes = 0;
  SendAccounting sends;
};

// --interval's hand-off between the measured loop (one writer) and the reporter thread: two
// slots, each an interval's latency histogram with the totals and times it closed with. The
// loop records into the open slot and, at a boundary, closes it and opens the other, unless
// the reporter still holds that one: then the interval simply goes on to the next boundary
// (its line says how long it was). The loop never allocates, locks, formats or waits for it.
class IntervalMeter {
public:
  struct Slot {
    Histogram latency;
    IntervalTotals totals;
    Clock::time_point start{};
    Clock::time_point end{};
    std::atomic<bool> closed{false}; // true: the reporter's until it sets it back
  };

  explicit IntervalMeter(Nanoseconds length) noexcept : m_length(length) {}
  Nanoseconds length() const noexcept { return m_length; }

  // Loop side. The first interval begins at `begin`.
  void start(Clock::time_point begin) noexcept;
  bool started() const noexcept { return m_started; }
  bool due(Clock::time_point now) const noexcept { return m_started && now >= m_next; }
  void record_latency(std::int64_t ns) noexcept { m_slots[m_open].latency.record(ns); }
  // Closes the open interval at `now`; false when the reporter still holds the other slot, so
  // the interval goes on.
  bool close(Clock::time_point now, const IntervalTotals& totals) noexcept;
  // Closes the last, partial interval once the measured phase is over (outside the measured
  // loop: it waits for the reporter when it must). Nothing when no interval began.
  void finish(Clock::time_point now, const IntervalTotals& totals) noexcept;

  // Reporter side: hands the next closed slot, in the order they closed, to `use`, then
  // clears it for the loop. False when none is closed.
  template <typename Use> bool take(Use&& use)
  {
    Slot& slot = m_slots[m_next_taken];
    if (!slot.closed.load(std::memory_order_acquire))
      return false;
    use(static_cast<const Slot&>(slot));
    slot.latency.reset();
    slot.closed.store(false, std::memory_order_release);
    m_next_taken ^= 1U;
    return true;
  }

private:
  const Nanoseconds m_length;
  std::array<Slot, 2> m_slots;
  // The loop's own.
  unsigned m_open = 0;
  bool m_started = false;
  Clock::time_point m_next{};
  // The reporter's own.
  unsigned m_next_taken = 0;
};

} // namespace netprof
