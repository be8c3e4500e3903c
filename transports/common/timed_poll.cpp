#include "common/timed_poll.hpp"

#include "common/socket_wait.hpp"

#include <sys/timerfd.h>

namespace netprof::transport_common {

TimedPoll::TimedPoll() noexcept
    : m_timer(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK))
{
}

int TimedPoll::wait(std::span<pollfd> fds, Nanoseconds wait) noexcept
{
  const timespec until = timespec_of(wait);
  const itimerspec timer{{0, 0}, until};
  // A timer left armed by the last wait is replaced here, its expiry count cleared; one that
  // fires after a descriptor woke this wait is cleared by the next. A zero it_value would
  // disarm the timer and leave ppoll waiting for ever, so no wait is ppoll's own zero timeout.
  // ppoll skips a negative fd.
  const bool timed = wait > Nanoseconds::zero() && m_timer.valid() &&
                     timerfd_settime(m_timer.get(), 0, &timer, nullptr) == 0;
  pollfd& slot = fds.back();
  slot = {timed ? m_timer.get() : -1, POLLIN, 0};
  int ready = ppoll(fds.data(), fds.size(), timed ? nullptr : &until, nullptr);
  if (ready > 0 && slot.revents != 0) {
    --ready; // the time passed; a descriptor that has events too still counts
  }
  return ready;
}

} // namespace netprof::transport_common
