#pragma once

#include <netprof/clock.hpp>

#include <atomic>
#include <cstdint>
#include <thread>

namespace netprof {

// Counters the measured loop publishes for the status line. One writer (the loop), relaxed
// stores only: the loop never formats, locks or allocates for the sake of the display.
struct LiveCounters {
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> received{0};
  std::atomic<std::uint64_t> echoes{0};
  std::atomic<bool> measuring{false};

  static void bump(std::atomic<std::uint64_t>& counter) noexcept
  {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

// Samples LiveCounters once a second on its own thread and rewrites one line on stderr.
// Started only when stderr is a terminal and the run is long enough to be worth watching.
class StatusLine {
public:
  explicit StatusLine(const LiveCounters& counters);
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  static bool wanted(bool quiet, double expected_seconds) noexcept;

private:
  void run();

  const LiveCounters& m_counters;
  std::atomic<bool> m_done{false};
  std::thread m_thread;
};

} // namespace netprof
