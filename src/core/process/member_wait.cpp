#include "core/process/member_wait.hpp"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace netprof {

namespace {

// Without a descriptor to wait on, how long one sleep lasts at most.
constexpr auto look_again_after = std::chrono::milliseconds(5);

} // namespace

void sleep_until_readable(int member_fd, int stop_fd,
                          std::optional<Clock::time_point> deadline) noexcept
{
  std::optional<Nanoseconds> sleep;
  if (deadline)
    sleep = std::max(Nanoseconds::zero(), *deadline - Clock::now());
  if (member_fd < 0)
    sleep = sleep ? std::min<Nanoseconds>(*sleep, look_again_after) : look_again_after;
  timespec timeout{};
  if (sleep) {
    timeout.tv_sec = static_cast<time_t>(sleep->count() / 1'000'000'000);
    timeout.tv_nsec = static_cast<long>(sleep->count() % 1'000'000'000);
  }
  // poll() passes over a negative descriptor. Readable, interrupted or timed out, the caller
  // looks at what it waits for.
  pollfd readable[2] = {{member_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  ppoll(readable, 2, sleep ? &timeout : nullptr, nullptr);
}

int open_process_exit_fd(pid_t pid) noexcept
{
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

int open_event_fd() noexcept
{
  return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void signal_event_fd(int fd) noexcept
{
  if (fd < 0)
    return;
  const int saved = errno; // a signal handler must leave errno as it found it
  while (eventfd_write(fd, 1) < 0 && errno == EINTR) {
  }
  errno = saved;
}

} // namespace netprof
