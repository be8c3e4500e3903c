#include "wake_line.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>

namespace netprof::shm {

namespace {

void wake_sleepers(WakeLine& line) noexcept
{
  std::atomic_ref<std::uint32_t>(line.doorbell).fetch_add(1, std::memory_order_release);
  futex_wake_all(line.doorbell);
}

} // namespace

void ring(WakeLine& line) noexcept
{
  if (std::atomic_ref<std::uint32_t>(line.sleepers).fetch_add(0, std::memory_order_seq_cst) != 0)
    wake_sleepers(line);
}

void ring_if_sleeping(WakeLine& line) noexcept
{
  if (std::atomic_ref<std::uint32_t>(line.sleepers).load(std::memory_order_relaxed) != 0)
    wake_sleepers(line);
}

void futex_wait(std::uint32_t& word, std::uint32_t expected, Nanoseconds timeout) noexcept
{
  if (timeout <= Nanoseconds::zero())
    return;
  // A day at most, so a caller passing Nanoseconds::max() cannot overflow the timespec.
  const Nanoseconds bounded = std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(bounded);
  const timespec relative{static_cast<time_t>(seconds.count()),
                          static_cast<long>((bounded - seconds).count())};
  // EAGAIN (the doorbell moved), EINTR (a signal: the core looks at its stop flag) and
  // ETIMEDOUT all mean "look again", which every caller does.
  syscall(SYS_futex, &word, FUTEX_WAIT, expected, &relative, nullptr, 0);
}

void futex_wake_all(std::uint32_t& word) noexcept
{
  syscall(SYS_futex, &word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

} // namespace netprof::shm
