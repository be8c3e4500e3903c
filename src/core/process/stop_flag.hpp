#pragma once

#include <atomic>

static_assert(std::atomic<int>::is_always_lock_free, "request() runs in signal handlers");

namespace netprof {

// Set by SIGINT, SIGTERM and SIGHUP; every loop checks it so an interrupted run still reports
// what it measured. A second SIGINT kills a role's process (that handler is one-shot); SIGTERM
// and SIGHUP only ever request the stop.
class StopFlag {
public:
  bool requested() const noexcept { return m_requested.load(std::memory_order_seq_cst); }
  // Async-signal-safe.
  void request() noexcept;
  // For a thread that sleeps in poll() rather than looking at the flag: an eventfd, readable
  // once request() was called (made now, if need be; -1 if it cannot be). Made on demand, since
  // it costs a descriptor, and a role may be run with very few (`ulimit -n 6` in the tests).
  int doorbell() noexcept;

private:
  std::atomic<bool> m_requested{false};
  std::atomic<int> m_doorbell{-1};
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
