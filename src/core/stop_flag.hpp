#pragma once

#include <atomic>

namespace netprof {

// Set by SIGINT, SIGTERM and SIGHUP; every loop checks it so an interrupted run still reports
// what it measured. A second SIGINT kills the process (that handler is one-shot); SIGTERM and
// SIGHUP only ever request the stop.
class StopFlag {
public:
  bool requested() const noexcept { return m_requested.load(std::memory_order_relaxed); }
  void request() noexcept { m_requested.store(true, std::memory_order_relaxed); }

private:
  std::atomic<bool> m_requested{false};
};

// The process-wide flag the signal handlers set.
StopFlag& process_stop_flag() noexcept;

// SIGINT, SIGTERM and SIGHUP request a stop; SIGPIPE is ignored.
void install_stop_signal_handlers();

} // namespace netprof
