#pragma once

// What the send loop keeps of the phase it is sending (SendLoop::send_next), which the
// publisher's thread and, relaying, a transport's receive thread advance in turn.

#include "core/roles/role_settings.hpp"

#include <netprof/clock.hpp>
#include <netprof/pacer.hpp>

#include <cstdint>
#include <optional>

namespace netprof {

// In ping-pong every message is a probe; in a stream, one every 1/--probe-hz, never in a burst.
class ProbeSchedule {
public:
  ProbeSchedule(bool every_message, double probe_hz, Clock::time_point start) noexcept
      : m_every_message(every_message), m_period(from_seconds(1.0 / probe_hz)), m_next(start)
  {
  }

  // `when`: the message's intended send time (paced: its due time; unpaced: now).
  bool due(Clock::time_point when) noexcept
  {
    if (m_every_message)
      return true;
    if (when < m_next)
      return false;
    m_next += m_period;
    if (m_next <= when) // after a stall, do not burst probes to catch up
      m_next = when + m_period;
    return true;
  }

private:
  const bool m_every_message;
  const Nanoseconds m_period;
  Clock::time_point m_next;
};

// One phase's progress: what send_next needs to send its next message, on the core's thread
// or, relaying, on the transport's.
struct PhaseRun {
  PhaseRun(const SendSettings& settings, bool ping_pong, bool warming_up, Clock::time_point start)
      : warmup(warming_up), pacer(settings.pacing.send_hz, start),
        end_time(start + from_seconds(warming_up ? settings.phases.warmup_seconds
                                                 : settings.phases.test_seconds)),
        count(warming_up ? settings.phases.warmup_count : settings.phases.count),
        probes(ping_pong, settings.pacing.probe_hz, start), last_send(start)
  {
  }

  const bool warmup;
  const Pacer pacer;
  const Clock::time_point end_time;
  const std::optional<std::uint64_t> count;
  ProbeSchedule probes;
  std::uint64_t next_index = 0; // the sequence of the next message to send
  Clock::time_point last_send;  // when the last message that went out was sent
};

} // namespace netprof
