#include "core/measuring/echo_timing.hpp"

namespace netprof {

namespace {

// NTP's exchange: the probe's actual send (not its intended time: the subscriber's clock saw it
// leave then), the subscriber's two stamps, and the echo's arrival.
ClockExchange exchange_of(const ProbeRing::Entry& probe, const wire::EchoStamps& stamps,
                          std::int64_t now_ns) noexcept
{
  return ClockExchange{probe.sent_ns, stamps.arrived_ns, stamps.echoed_ns, now_ns};
}

} // namespace

bool EchoTimer::record(Member& member, ProbeRing::Entry& probe, Clock::time_point now,
                       const wire::EchoStamps* stamps) noexcept
{
  const bool current = m_current.awaiting && probe.sequence == m_current.sequence &&
                       probe.warmup == m_current.warmup;
  if (probe.warmup) {
    // Warm-up exchanges sharpen the clock offset, though they are no latency sample.
    if (stamps != nullptr)
      member.echoes.cross_clock.add(exchange_of(probe, *stamps, to_wire_ns(now)), false);
    if (current)
      ++m_current.echoes;
    return true;
  }
  MemberEchoes& echoes = member.echoes;
  if (echoes.any && probe.sequence <= echoes.last_sequence)
    return false;
  echoes.any = true;
  echoes.last_sequence = probe.sequence;

  const std::int64_t now_ns = to_wire_ns(now);
  const std::int64_t rtt = now_ns - probe.intended_ns;
  m_rtt.record(rtt);
  if (m_intervals != nullptr)
    m_intervals->record_latency(rtt);
  m_rtt_uncorrected.record(now_ns - probe.sent_ns);
  echoes.rtt->record(rtt);
  if (stamps != nullptr)
    echoes.cross_clock.add(exchange_of(probe, *stamps, now_ns), true);
  ++echoes.count;
  if (probe.echoes++ == 0)
    probe.first_echo_ns = now_ns;
  probe.last_echo_ns = now_ns;
  if (probe.expected_echoes >= 2 && probe.echoes == probe.expected_echoes)
    m_fanout_skew.record(probe.last_echo_ns - probe.first_echo_ns);
  ++m_echoes;
  LiveCounters::bump(m_live.echoes);
  if (current)
    ++m_current.echoes;
  else if (m_ping_pong)
    ++m_echoes_late; // its probe had already timed out
  return true;
}

} // namespace netprof
