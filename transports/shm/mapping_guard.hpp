#pragma once

// Survives a segment truncated under a running process. Anyone who may write the file (its
// owner, root, any process that opened it read-write) can ftruncate it; Linux then raises
// SIGBUS at the next access to a page past the new end, and that signal's default action
// kills the process with no report. Mapping with MAP_POPULATE and mlock does not prevent it on
// tmpfs (tried: truncation drops the pages from every mapping, locked or not, and the next
// access still faults), and checking the size before each access would cost the measured loop
// a syscall per message.
//
// So a guarded mapping is what Wayland compositors do with their clients' shm pools: a SIGBUS
// handler that, when the faulting address lies in a guarded mapping, maps anonymous zeroed
// memory over the whole mapping (MAP_FIXED, one mmap: a plain syscall) and marks it lost. The
// faulting access then completes against the zeros, the measured loop goes on untouched (the
// ring reads zeros as "nothing new") and the endpoint finds the mark at its next idle poll or
// health check, ends the run with a report and exit 3. The loop pays nothing per message: no
// sigsetjmp (which would save registers, and with the signal mask a syscall, at every access),
// no size check. A SIGBUS anywhere else goes to whatever handled it before (the default: the
// process dies, as it should for a real bug).

#include <atomic>
#include <cstddef>

namespace netprof::shm {

class MappingGuard {
public:
  MappingGuard() = default;
  // Guards [base, base + size). Installs the handler on first use. A guard that finds no free
  // entry (more than a few mappings at once) guards nothing; lost() then stays false.
  MappingGuard(void* base, std::size_t size) noexcept;
  ~MappingGuard();
  MappingGuard(MappingGuard&& other) noexcept;
  MappingGuard& operator=(MappingGuard&& other) noexcept;
  MappingGuard(const MappingGuard&) = delete;
  MappingGuard& operator=(const MappingGuard&) = delete;

  // True once a SIGBUS in the mapping replaced it with zeros: the file was truncated. One
  // load, for idle polls. (The handler runs on the thread that faulted, the one that asks.)
  bool lost() const noexcept { return m_lost->load(std::memory_order_relaxed); }
  // Stops guarding (before munmap, so a later mapping at the same address is not taken for it).
  void release() noexcept;

private:
  static const std::atomic<bool> never_lost;

  int m_entry = -1;
  const std::atomic<bool>* m_lost = &never_lost; // the entry's mark while guarding
};

} // namespace netprof::shm
