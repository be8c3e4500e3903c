#include "core/process/member_wait.hpp"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace netprof {

namespace {

// Without a descriptor to wait on, how long one sleep lasts at most.
constexpr auto look_again_after = std::chrono::milliseconds(5);

sigset_t stop_signals() noexcept
{
  sigset_t signals;
  sigemptyset(&signals);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&signals, signal);
  return signals;
}

} // namespace

StopSignalsHeld::StopSignalsHeld() noexcept
{
  const sigset_t held = stop_signals();
  pthread_sigmask(SIG_BLOCK, &held, &m_before);
}

StopSignalsHeld::~StopSignalsHeld()
{
  pthread_sigmask(SIG_SETMASK, &m_before, nullptr);
}

void StopSignalsHeld::sleep_until_readable(int fd,
                                           std::optional<Clock::time_point> deadline) const noexcept
{
  std::optional<Nanoseconds> sleep;
  if (deadline)
    sleep = std::max(Nanoseconds::zero(), *deadline - Clock::now());
  if (fd < 0)
    sleep = sleep ? std::min<Nanoseconds>(*sleep, look_again_after) : look_again_after;
  timespec timeout{};
  if (sleep) {
    timeout.tv_sec = static_cast<time_t>(sleep->count() / 1'000'000'000);
    timeout.tv_nsec = static_cast<long>(sleep->count() % 1'000'000'000);
  }
  pollfd readable{fd, POLLIN, 0};
  // The signals held back come in here, and only here: a handler that runs ends the sleep
  // (EINTR). Readable or not, the caller looks at what it waits for.
  ppoll(&readable, fd < 0 ? 0 : 1, sleep ? &timeout : nullptr, &m_before);
}

int open_process_exit_fd(pid_t pid) noexcept
{
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

int open_event_fd() noexcept
{
  return eventfd(0, EFD_CLOEXEC);
}

void signal_event_fd(int fd) noexcept
{
  if (fd < 0)
    return;
  const eventfd_t one = 1;
  while (eventfd_write(fd, one) < 0 && errno == EINTR) {
  }
}

} // namespace netprof
