#pragma once

#include <netprof/clock.hpp>

#include <algorithm>
#include <chrono>

namespace netprof {

// When a stream's publisher looks for echoes between sends while a probe is out. An echo is
// timed when a look hands it over, so every look put off is added to the round trip it
// measures; but a look that finds nothing can cost more than a send (over ZeroMQ two system
// calls, 1-2 us on a VM), and under load a probe is out nearly all the time, so looking every
// couple of microseconds took half the publisher's time. So the looks thin out as the newest
// probe ages: the next comes once `clamp(age / age_divisor, min_interval, max_interval)` has
// passed since the last one, `age` being how long the newest probe has been out.
//
// The bound: an echo's probe is never younger than the newest probe, so an echo is handed
// over at most max(2 us, min(its measured round trip / 16, 50 us)) after it arrived, plus the
// send under way, where a fixed 2 us cadence gave 2 us: the same on a quiet machine (round
// trips under 32 us), at most 1/16 of a longer one. Ping-pong never comes here.
class EchoPollCadence {
public:
  static constexpr Nanoseconds min_interval = std::chrono::microseconds(2);
  static constexpr Nanoseconds max_interval = std::chrono::microseconds(50);
  static constexpr int age_divisor = 16;

  // Starts a phase: as if it had just looked.
  void restart(Clock::time_point now) noexcept
  {
    m_last_look = now;
    m_newest_probe = now;
  }

  void probe_sent(Clock::time_point sent) noexcept { m_newest_probe = sent; }

  // Whether a look is due at `now`, a probe being out.
  bool due(Clock::time_point now) const noexcept
  {
    const Nanoseconds age = now - m_newest_probe;
    const Nanoseconds interval =
        std::clamp<Nanoseconds>(age / age_divisor, min_interval, max_interval);
    return now - m_last_look >= interval;
  }

  void looked(Clock::time_point now) noexcept { m_last_look = now; }

private:
  Clock::time_point m_last_look{};
  Clock::time_point m_newest_probe{};
};

} // namespace netprof
