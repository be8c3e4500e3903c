#pragma once

#include <netprof/clock.hpp>

#include <optional>
#include <sys/types.h>

namespace netprof {

// How a local pair's parent waits for its members without waking while they run. It used to
// look every 5 ms: 200 wake-ups a second, each taking a CPU from a spinning member on a 2-core
// machine, and so netprof's own machinery in the members' latency tails. Now it sleeps in the
// kernel until a member finishes (its descriptor turns readable), a stop is requested (the
// process stop flag's doorbell), a signal comes, or a deadline passes.
//
// Sleeps until `member_fd` or `stop_fd` is readable, a signal interrupts, or `deadline` (none:
// no limit). A descriptor of -1 is passed over; with no member_fd (nothing to wait on), sleeps
// a few milliseconds at most, so that the caller looks again. May return early; callers loop.
void sleep_until_readable(int member_fd, int stop_fd,
                          std::optional<Clock::time_point> deadline) noexcept;

// A descriptor that turns readable when process `pid` (our child) ends, or -1 where the kernel
// has no pidfd (before Linux 5.3). The caller closes it.
int open_process_exit_fd(pid_t pid) noexcept;

// An eventfd that signal_event_fd() makes readable (a thread that is done, a stop requested),
// or -1. signal_event_fd is async-signal-safe and passes over -1.
int open_event_fd() noexcept;
void signal_event_fd(int fd) noexcept;

} // namespace netprof
