#include "mapping_guard.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <utility>

namespace netprof::shm {

namespace {

// Read by the signal handler, so lock-free atomics only. A publisher maps one segment, a
// subscriber one at a time (two while it moves to a replaced publisher's).
struct GuardedRange {
  std::atomic<std::uintptr_t> begin{0}; // 0: a free entry
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> lost{false};
};

std::array<GuardedRange, 8> g_ranges;
struct sigaction g_previous {};
std::atomic<bool> g_installed{false};

static_assert(std::atomic<std::uintptr_t>::is_always_lock_free &&
              std::atomic<bool>::is_always_lock_free);

bool replace_with_zeros(GuardedRange& range, std::uintptr_t address) noexcept
{
  const std::uintptr_t begin = range.begin.load(std::memory_order_acquire);
  const std::uintptr_t end = range.end.load(std::memory_order_acquire);
  if (begin == 0 || address < begin || address >= end)
    return false;
  void* zeros = mmap(reinterpret_cast<void*>(begin), end - begin, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (zeros == MAP_FAILED)
    return false;
  range.lost.store(true, std::memory_order_release);
  return true;
}

void on_sigbus(int signal, siginfo_t* info, void*) noexcept
{
  const int saved_errno = errno;
  // si_code > 0: raised by the kernel for a fault at si_addr (kill() and sigqueue() give <= 0).
  if (info != nullptr && info->si_code > 0) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (GuardedRange& range : g_ranges)
      if (replace_with_zeros(range, address)) {
        errno = saved_errno;
        return; // the access is retried, against the zeros
      }
  }
  // Not ours: hand it back. A fault recurs when the access is retried and reaches the previous
  // action; a signal sent by kill() does not, so it is raised again (delivered on return).
  sigaction(signal, &g_previous, nullptr);
  if (info == nullptr || info->si_code <= 0)
    raise(signal);
  errno = saved_errno;
}

void install_handler() noexcept
{
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, &g_previous);
}

} // namespace

const std::atomic<bool> MappingGuard::never_lost{false};

MappingGuard::MappingGuard(void* base, std::size_t size) noexcept
{
  if (!g_installed.exchange(true, std::memory_order_acq_rel))
    install_handler();
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  for (std::size_t index = 0; index < g_ranges.size(); ++index) {
    GuardedRange& range = g_ranges[index];
    std::uintptr_t free = 0;
    // end is still 0 while the entry is claimed, so the handler cannot match it half-written.
    if (range.begin.compare_exchange_strong(free, begin, std::memory_order_acq_rel)) {
      range.lost.store(false, std::memory_order_relaxed);
      range.end.store(begin + size, std::memory_order_release);
      m_entry = static_cast<int>(index);
      m_lost = &range.lost;
      return;
    }
  }
}

MappingGuard::~MappingGuard()
{
  release();
}

MappingGuard::MappingGuard(MappingGuard&& other) noexcept
    : m_entry(std::exchange(other.m_entry, -1)), m_lost(std::exchange(other.m_lost, &never_lost))
{
}

MappingGuard& MappingGuard::operator=(MappingGuard&& other) noexcept
{
  if (this != &other) {
    release();
    m_entry = std::exchange(other.m_entry, -1);
    m_lost = std::exchange(other.m_lost, &never_lost);
  }
  return *this;
}

void MappingGuard::release() noexcept
{
  if (m_entry < 0)
    return;
  GuardedRange& range = g_ranges[static_cast<std::size_t>(m_entry)];
  range.end.store(0, std::memory_order_release);
  range.begin.store(0, std::memory_order_release);
  m_entry = -1;
  m_lost = &never_lost;
}

} // namespace netprof::shm
