#pragma once

#include <netprof/clock.hpp>

#include <csignal>
#include <optional>
#include <sys/types.h>

namespace netprof {

// How a local pair's parent waits for its members without waking while they run. It used to
// look every 5 ms: 200 wake-ups a second, each taking a CPU from a spinning member on a 2-core
// machine, and so netprof's own machinery in the members' latency tails. Now it sleeps in the
// kernel until a member finishes, an interrupt comes, or a deadline passes.
//
// While one lives, this thread holds back the stop signals (SIGINT, SIGTERM, SIGHUP): between
// a look at the stop flag and the sleep after it, a signal would be missed until the next
// wake-up. sleep_until_readable() lets them in only while it sleeps (ppoll), so one that comes
// ends the sleep, and the caller sees the flag it set.
class StopSignalsHeld {
public:
  StopSignalsHeld() noexcept;
  ~StopSignalsHeld();
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

  // Sleeps until `fd` is readable, a stop signal arrives, or `deadline` (none: no limit).
  // `fd` < 0 (nothing to wait on): sleeps at most a few milliseconds, so that the caller looks
  // again, as it would have before. May return early; callers loop.
  void sleep_until_readable(int fd, std::optional<Clock::time_point> deadline) const noexcept;

private:
  sigset_t m_before;
};

// A descriptor that turns readable when process `pid` (our child) ends, or -1 where the kernel
// has no pidfd (before Linux 5.3). The caller closes it.
int open_process_exit_fd(pid_t pid) noexcept;

// A descriptor a thread makes readable once (signal_event_fd) when it is done, or -1.
int open_event_fd() noexcept;
void signal_event_fd(int fd) noexcept;

} // namespace netprof
