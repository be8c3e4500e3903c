#include <netprof/pacer.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace netprof {

namespace {

// Periods beyond ~300 years mean "never again"; capping keeps 0 * period finite for message 0.
constexpr double longest_period_ns = 1e19;

// Rounding the estimate in messages_due_by() can be off by one either way; due() settles it.
constexpr int max_corrections = 4;

std::uint64_t to_unsigned_ns(Clock::time_point t) noexcept
{
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<Nanoseconds>(t.time_since_epoch()).count());
}

} // namespace

Pacer::Pacer(double rate_hz, Clock::time_point start) noexcept
    : m_start(start), m_period_ns(rate_hz > 0.0 && std::isfinite(rate_hz)
                                      ? std::min(1e9 / rate_hz, longest_period_ns)
                                      : 0.0)
{
}

Clock::time_point Pacer::due(std::uint64_t index) const noexcept
{
  // index * period from scratch each time, rounded once: accumulating whole-nanosecond
  // periods would drift 3 ms over 1e7 messages at 3 Hz, and a double sum rounds every add.
  const double offset_ns = static_cast<double>(index) * m_period_ns;
  const double headroom_ns =
      std::chrono::duration<double, std::nano>(Clock::time_point::max().time_since_epoch())
          .count() -
      std::chrono::duration<double, std::nano>(m_start.time_since_epoch()).count();
  // The margin covers the rounding of headroom_ns itself, so the addition cannot overflow.
  if (!(offset_ns < headroom_ns - 4096.0))
    return Clock::time_point::max();
  return m_start +
         std::chrono::duration_cast<Clock::duration>(Nanoseconds(std::llround(offset_ns)));
}

Nanoseconds Pacer::period() const noexcept
{
  if (m_period_ns >= static_cast<double>(std::numeric_limits<Nanoseconds::rep>::max() / 2))
    return Nanoseconds::max();
  return Nanoseconds(std::llround(m_period_ns));
}

std::uint64_t Pacer::messages_due_by(Clock::time_point now) const noexcept
{
  constexpr std::uint64_t everything = std::numeric_limits<std::uint64_t>::max();
  if (!paced())
    return everything;
  if (now < m_start)
    return 0;
  // Unsigned difference: exact for any now >= start, even after months of uptime, where the
  // nanosecond counts themselves no longer fit a double exactly.
  const double elapsed_ns = static_cast<double>(to_unsigned_ns(now) - to_unsigned_ns(m_start));
  const double estimate = std::floor(elapsed_ns / m_period_ns) + 1.0;
  std::uint64_t due_count = estimate >= static_cast<double>(everything)
                                ? everything
                                : static_cast<std::uint64_t>(estimate);
  // Settle the estimate against due() itself, so "k is due" and "k < messages_due_by(now)"
  // never disagree. A slot whose due() saturated lies beyond the clock's range: never due.
  const auto comes_due = [&](std::uint64_t index) {
    const Clock::time_point when = due(index);
    return when <= now && when != Clock::time_point::max();
  };
  for (int i = 0; i < max_corrections && due_count > 0 && !comes_due(due_count - 1); ++i)
    --due_count;
  for (int i = 0; i < max_corrections && due_count < everything && comes_due(due_count); ++i)
    ++due_count;
  return due_count;
}

} // namespace netprof
