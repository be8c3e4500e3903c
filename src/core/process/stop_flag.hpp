#pragma once

#include <atomic>

namespace netprof {

// Set by SIGINT, SIGTERM and SIGHUP; every loop checks it so an interrupted run still reports
// what it measured. A second SIGINT kills a role's process (that handler is one-shot); SIGTERM
// and SIGHUP only ever request the stop.
class StopFlag {
public:
  StopFlag() = default;
  // A flag whose request() also makes `doorbell` (an eventfd, or -1) readable, for a thread
  // that sleeps in poll() rather than looking at the flag: no wake-ups while nothing happens.
  explicit StopFlag(int doorbell) noexcept : m_doorbell(doorbell) {}

  bool requested() const noexcept { return m_requested.load(std::memory_order_relaxed); }
  // Async-signal-safe.
  void request() noexcept;
  // Readable once request() was called; -1 when this flag has none.
  int doorbell() const noexcept { return m_doorbell; }

private:
  std::atomic<bool> m_requested{false};
  int m_doorbell = -1;
};

// The process-wide flag the signal handlers set.
StopFlag& process_stop_flag() noexcept;

// What a second SIGINT does. To a role, it is the user's "stop now": the process ends where
// it stands. To the parent of a local pair it is only a repeat: its children write the report,
// and it must outlive them (`timeout -s INT` signals it twice, once on its own and once with
// its process group); it waits for them, bounded, whatever comes.
enum class SecondInterrupt { ends_the_process, repeats_the_first };

// SIGINT, SIGTERM and SIGHUP request a stop; SIGPIPE is ignored.
void install_stop_signal_handlers(SecondInterrupt second = SecondInterrupt::ends_the_process);

} // namespace netprof
