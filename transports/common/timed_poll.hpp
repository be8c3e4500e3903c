#pragma once

// Waiting in ppoll with the wait's end on a timerfd, for the transports whose paced waits end
// in ppoll.

#include "common/unique_fd.hpp"

#include <netprof/clock.hpp>

#include <poll.h>

#include <span>

namespace netprof::transport_common {

// A ppoll whose timeout is a timerfd among the descriptors, not ppoll's own. A ppoll timer armed
// and cancelled around every wait cost a paced sender's echo 6-15 us of wake-up here (a bare
// pinger at 1 kHz over UDP: RTT p50 23-32 us, against 16-17 us in a blocking recv and 12-12.6 us
// with a timerfd; docs/methodology.md, Pacing). Falls back to ppoll's own timeout if the kernel
// refused a timerfd.
class TimedPoll {
public:
  TimedPoll() noexcept;

  // Waits for `fds` (all but their last entry, which is this timer's slot and is overwritten)
  // for `wait` at most. Returns how many of the caller's entries have events (0: the time
  // passed), or -1 with errno (EINTR: a signal).
  int wait(std::span<pollfd> fds, Nanoseconds wait) noexcept;

private:
  UniqueFd m_timer;
};

} // namespace netprof::transport_common
