#include "core/measuring/interval_reporter.hpp"

#include "core/roles/live_status.hpp"
#include "core/scheduling/timer_slack.hpp"

#include <chrono>

namespace netprof {

namespace {

// How often the reporter looks for a closed interval: a line comes this late at most, and
// the loop finds its other slot free again long before the next boundary.
constexpr auto look_interval = std::chrono::milliseconds(10);

// The last, partial interval closed at the very moment the phase ended ("[ 2.00- 2.00 s]
// received 0"): next to no time and nothing in it, so neither a line nor a JSON entry.
bool is_empty_remainder(const IntervalFigures& interval, Nanoseconds length) noexcept
{
  constexpr double shortest_share = 0.05; // of --interval
  return interval.end_seconds - interval.start_seconds < shortest_share * to_seconds(length) &&
         interval.messages == 0 && interval.echoes == 0 && interval.lost == 0 &&
         interval.latency_count == 0;
}

} // namespace

IntervalReporter::IntervalReporter(IntervalMeter& meter, Role role, std::FILE* out)
    : m_meter(meter), m_role(role), m_out(out), m_thread([this] { run(); })
{
}

IntervalReporter::~IntervalReporter()
{
  if (m_thread.joinable())
    stop();
}

std::vector<IntervalFigures> IntervalReporter::stop()
{
  m_done.store(true, std::memory_order_release);
  m_thread.join();
  take_all();
  return std::move(m_figures);
}

void IntervalReporter::run()
{
  use_minimal_timer_slack();
  while (!m_done.load(std::memory_order_acquire)) {
    take_all();
    std::this_thread::sleep_for(look_interval);
  }
}

void IntervalReporter::take_all()
{
  while (m_meter.take([this](const IntervalMeter::Slot& slot) {
    if (!m_any) {
      m_phase_start = slot.start;
      m_any = true;
    }
    IntervalFigures interval = figures(slot, m_before, m_phase_start);
    m_before = slot.totals;
    if (is_empty_remainder(interval, m_meter.length()))
      return;
    if (m_out != nullptr)
      print_beside_status_line(m_out, format_interval_line(interval, m_role));
    m_figures.push_back(interval);
  })) {
  }
}

IntervalFigures IntervalReporter::figures(const IntervalMeter::Slot& slot,
                                          const IntervalTotals& before,
                                          Clock::time_point phase_start) noexcept
{
  const IntervalTotals& after = slot.totals;
  IntervalFigures interval;
  interval.start_seconds = to_seconds(slot.start - phase_start);
  interval.end_seconds = to_seconds(slot.end - phase_start);
  interval.messages = after.messages - before.messages;
  interval.payload_bytes = after.payload_bytes - before.payload_bytes;
  interval.sends = after.sends.since(before.sends);
  interval.echoes = after.echoes - before.echoes;
  // A late arrival fills an earlier gap: the count of missing numbers can fall.
  interval.lost = after.missing > before.missing ? after.missing - before.missing : 0;
  interval.latency_count = slot.latency.count();
  interval.latency_p50_ns = slot.latency.percentile(50.0);
  interval.latency_p99_ns = slot.latency.percentile(99.0);
  return interval;
}

} // namespace netprof
