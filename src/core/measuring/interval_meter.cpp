#include "core/measuring/interval_meter.hpp"

#include <algorithm>
#include <thread>

namespace netprof {

void IntervalMeter::start(Clock::time_point begin) noexcept
{
  m_slots[m_open].start = begin;
  m_next = begin + m_length;
  m_started = true;
}

bool IntervalMeter::close(Clock::time_point now, const IntervalTotals& totals) noexcept
{
  const unsigned other = m_open ^ 1U;
  if (m_slots[other].closed.load(std::memory_order_acquire))
    return false;
  Slot& closing = m_slots[m_open];
  closing.totals = totals;
  closing.end = std::max(now, closing.start); // a last message before a silent interval's start
  closing.closed.store(true, std::memory_order_release);
  m_open = other;
  m_slots[other].start = now;
  // Boundaries stay on the grid from the start; a loop that came late skips the ones it missed.
  while (m_next <= now)
    m_next += m_length;
  return true;
}

void IntervalMeter::finish(Clock::time_point now, const IntervalTotals& totals) noexcept
{
  if (!m_started)
    return;
  while (!close(now, totals))
    std::this_thread::yield(); // the reporter takes a slot in well under a millisecond
  m_started = false;
}

} // namespace netprof
