#pragma once

// The send schedule for --send-hz. Message k is due at start + k * period, on an absolute
// schedule: a late send does not push later ones back, so the intended time stamped into each
// probe is the schedule's, not the moment the sender got around to it (no coordinated
// omission). Without a rate every message is due at once.

#include <netprof/clock.hpp>

#include <cstdint>

namespace netprof {

class Pacer {
public:
  // rate_hz <= 0 (or NaN, or infinite): unpaced (as fast as possible).
  Pacer(double rate_hz, Clock::time_point start) noexcept;

  // Inline: the send loop asks it for every message.
  bool paced() const noexcept { return m_period_ns > 0.0; }
  // When message number `index` (0-based since start) is due. Computed from the index, never
  // accumulated, so it does not drift; saturates at Clock::time_point::max().
  Clock::time_point due(std::uint64_t index) const noexcept;
  // The period rounded to whole nanoseconds; the schedule itself keeps the fraction.
  Nanoseconds period() const noexcept;
  // How many messages are due by `now`: the count of indices k with due(k) <= now (0 before
  // start). Unpaced: UINT64_MAX, everything is due.
  std::uint64_t messages_due_by(Clock::time_point now) const noexcept;

private:
  Clock::time_point m_start;
  double m_period_ns; // 0 when unpaced
};

} // namespace netprof
