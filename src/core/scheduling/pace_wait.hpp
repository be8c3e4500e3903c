#pragma once

// How a paced publisher (--send-hz) waits for a message's due time, decided apart from the
// waiting itself so the decisions can be tested without a clock or a transport.
//
// A sleep in the kernel ends late: the timer's slack (50 us by default, 1 ns once netprof sets
// it; see timer_slack.hpp) and the wake-up of a sleeping thread, several microseconds on a VM.
// Every message is stamped with its due time (no coordinated omission), so that lateness
// would be charged to the transport. --pace hybrid sleeps until shortly before the due time
// and polls the rest of the way; how long before (the margin) is learned from how late this
// host's sleeps actually wake.

#include <netprof/clock.hpp>
#include <netprof/config.hpp>

#include <algorithm>
#include <chrono>

namespace netprof {

enum class PaceAction {
  send,  // the message is due
  sleep, // wait the wait strategy's way until PaceStep::until
  poll   // one non-blocking look at the back channel, then decide again
};

struct PaceStep {
  PaceAction action = PaceAction::send;
  Clock::time_point until{}; // for sleep: when to wake
};

// The next step towards sending a message due at `due`, at `now`. `margin` is how long before
// the due time a hybrid pacer stops sleeping.
inline PaceStep next_pace_step(PaceMode mode, Clock::time_point now, Clock::time_point due,
                               Nanoseconds margin) noexcept
{
  if (now >= due)
    return {PaceAction::send, due};
  switch (mode) {
  case PaceMode::sleep:
    return {PaceAction::sleep, due};
  case PaceMode::spin:
    return {PaceAction::poll, due};
  case PaceMode::hybrid:
    break;
  }
  if (due - now > margin)
    return {PaceAction::sleep, due - margin};
  return {PaceAction::poll, due};
}

// The hybrid pacer's margin: a little more than the latest sleeps overslept. It follows the
// largest recent oversleep, which decays by a sixteenth per sleep, so one long stall widens it
// for a while and a quiet host narrows it again; bounded so that a stall never makes the pacer
// spin most of a period, and a quiet host still leaves room for a wake-up.
class HybridMargin {
public:
  static constexpr Nanoseconds initial = std::chrono::microseconds(50);
  static constexpr Nanoseconds smallest = std::chrono::microseconds(10);
  static constexpr Nanoseconds largest = std::chrono::microseconds(200);
  static constexpr Nanoseconds headroom = std::chrono::microseconds(5);
  static constexpr int decay_divisor = 16;

  // A sleep meant to end at `target` ended at `woke`.
  void woke(Clock::time_point target, Clock::time_point woke) noexcept
  {
    const Nanoseconds late = std::max(Nanoseconds::zero(), woke - target);
    m_recent_worst = std::max(late, m_recent_worst - m_recent_worst / decay_divisor);
  }

  Nanoseconds margin() const noexcept
  {
    return std::clamp(m_recent_worst + m_recent_worst / 4 + headroom, smallest, largest);
  }

private:
  Nanoseconds m_recent_worst = initial;
};

} // namespace netprof
