#pragma once

#include "core/measuring/interval_meter.hpp"

#include <netprof/report.hpp>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace netprof {

// --interval's reporter: on its own thread, takes each interval the measured loop closed
// (IntervalMeter), turns it into figures, keeps them for the JSON and prints its line, so the
// loop never summarizes a histogram, formats or writes.
class IntervalReporter {
public:
  // `out`: where lines go (stdout), or null to keep them for the report only (--quiet).
  IntervalReporter(IntervalMeter& meter, Role role, std::FILE* out);
  ~IntervalReporter();
  IntervalReporter(const IntervalReporter&) = delete;
  IntervalReporter& operator=(const IntervalReporter&) = delete;

  // Takes what is left (call IntervalMeter::finish first), ends the thread and hands over
  // every interval, in order.
  std::vector<IntervalFigures> stop();

  // One interval's figures from the totals at its start and its end; `phase_start` is when
  // the first interval began.
  static IntervalFigures figures(const IntervalMeter::Slot& slot, const IntervalTotals& before,
                                 Clock::time_point phase_start) noexcept;

private:
  void run();
  void take_all();

  IntervalMeter& m_meter;
  const Role m_role;
  std::FILE* const m_out;
  IntervalTotals m_before;
  bool m_any = false;
  Clock::time_point m_phase_start{};
  std::vector<IntervalFigures> m_figures;
  std::atomic<bool> m_done{false};
  std::thread m_thread;
};

} // namespace netprof
