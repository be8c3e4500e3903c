#pragma once

#include "core/measuring/interval_meter.hpp"
#include "core/measuring/probe_ring.hpp"
#include "core/roles/live_status.hpp"
#include "core/roles/membership.hpp"

#include <netprof/clock.hpp>
#include <netprof/histogram.hpp>
#include <netprof/wire.hpp>

#include <cstddef>
#include <cstdint>

namespace netprof {

// The publisher's round trips: which probes were really sent (so a forged or stale echo never
// becomes a sample), the probe the sender waits on, and the histograms the echoes fill.
class EchoTimer {
public:
  EchoTimer(LiveCounters& live, bool ping_pong) noexcept : m_live(live), m_ping_pong(ping_pong) {}

  // --interval: each round trip is also recorded in the meter's open interval.
  void measure_intervals(IntervalMeter* meter) noexcept { m_intervals = meter; }

  // Called once a probe is out; `expected_echoes` is how many members should answer it.
  void probe_sent(const wire::DataStamp& probe, std::uint32_t expected_echoes,
                  Clock::time_point deadline) noexcept
  {
    const bool warmup = (probe.flags & wire::flags::warmup) != 0;
    m_probes.remember(probe.sequence, warmup, probe.intended_ns, probe.sent_ns, expected_echoes);
    m_current = Current{probe.sequence, warmup, true, 0, expected_echoes, deadline};
  }

  // The probe this echo answers if this run really sent it with exactly these stamps, else null.
  ProbeRing::Entry* probe_of(const wire::Header& echo, std::uint64_t run_id) noexcept
  {
    if (echo.run_id != run_id)
      return nullptr;
    const bool warmup = (echo.flags & wire::flags::warmup) != 0;
    return m_probes.find(echo.sequence, warmup, echo.intended_ns, echo.sent_ns);
  }

  // Takes a member's echo of `probe`, arrived at `now`, with the subscriber's own stamps when
  // the echo carries them (null: a subscriber that predates them); false when it must be
  // rejected (a duplicate, or one overtaken by a later probe's echo).
  bool record(Member& member, ProbeRing::Entry& probe, Clock::time_point now,
              const wire::EchoStamps* stamps) noexcept;

  bool awaiting() const noexcept { return m_current.awaiting; }
  void stop_awaiting() noexcept { m_current.awaiting = false; }
  std::size_t current_echoes() const noexcept { return m_current.echoes; }
  // What probe_sent was told the current probe is owed.
  std::size_t current_expected() const noexcept { return m_current.expected; }
  Clock::time_point current_deadline() const noexcept { return m_current.deadline; }

  std::uint64_t echoes() const noexcept { return m_echoes; }
  std::uint64_t echoes_late() const noexcept { return m_echoes_late; }
  const Histogram& rtt() const noexcept { return m_rtt; }
  const Histogram& rtt_uncorrected() const noexcept { return m_rtt_uncorrected; }
  const Histogram& fanout_skew() const noexcept { return m_fanout_skew; }

private:
  // The probe whose echoes the sender is waiting for (ping-pong), or polling for (stream).
  struct Current {
    std::uint64_t sequence = 0;
    bool warmup = false;
    bool awaiting = false;
    std::size_t echoes = 0;
    std::size_t expected = 0;
    Clock::time_point deadline{};
  };

  LiveCounters& m_live;
  const bool m_ping_pong;
  ProbeRing m_probes;
  Current m_current;
  Histogram m_rtt;
  Histogram m_rtt_uncorrected;
  Histogram m_fanout_skew;
  std::uint64_t m_echoes = 0;
  std::uint64_t m_echoes_late = 0;
  IntervalMeter* m_intervals = nullptr;
};

} // namespace netprof
