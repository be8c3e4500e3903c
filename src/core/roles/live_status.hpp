#pragma once

#include <netprof/clock.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

namespace netprof {

// Where a role is in its run, for the status line: above all, what it is waiting for.
enum class LivePhase : std::uint8_t {
  setting_up,
  waiting_for_subscribers,     // publisher: fewer members than --subscribers so far
  waiting_for_acknowledgement, // subscriber: saying hello, no publisher took it in yet
  waiting_for_data,            // subscriber: taken in, its publisher has sent nothing yet
  warming_up,
  measuring,
  ending // publisher: END sent, collecting final counters; subscriber: END received
};

// Counters the measured loop publishes for the status line. One writer (the loop), relaxed
// stores only: the loop never formats, locks or allocates for the sake of the display.
struct LiveCounters {
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> received{0};
  std::atomic<std::uint64_t> echoes{0};
  std::atomic<LivePhase> phase{LivePhase::setting_up};
  std::atomic<std::uint32_t> subscribers_expected{0};  // publisher: --subscribers
  std::atomic<std::uint32_t> subscribers_announced{0}; // publisher: members so far

  void enter(LivePhase next) noexcept { phase.store(next, std::memory_order_relaxed); }

  static void bump(std::atomic<std::uint64_t>& counter) noexcept
  {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

// The status line's words for a phase, e.g. "waiting for 2 subscribers (1 announced)".
std::string describe_phase(LivePhase phase, std::uint32_t expected, std::uint32_t announced);

// What the status line says besides the counters while a role waits for its peer.
struct StatusContext {
  std::string where;       // publisher: the address it listens at; subscriber: its publisher's
  double wait_seconds = 0; // --wait: how long a role waits for its peer before it gives up
};

// " at 127.0.0.1:40000, 7 s of --wait 10 s left" while a role waits for its peer (hellos or
// the acknowledgement) after `waited_seconds` of waiting; empty in any other phase.
std::string describe_wait(LivePhase phase, const StatusContext& context, double waited_seconds);

// Prints `line` and a newline to `out` (stdout) while a status line may be showing on stderr
// of the same terminal: the status line is cleared first and drawn again on its next tick, so
// the two never run into each other on one line.
void print_beside_status_line(std::FILE* out, const std::string& line);

// Samples LiveCounters once a second on its own thread and rewrites one line on stderr.
// Started only when stderr is a terminal and the run is long enough to be worth watching.
class StatusLine {
public:
  StatusLine(const LiveCounters& counters, StatusContext context);
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  static bool wanted(bool quiet, double expected_seconds) noexcept;

private:
  void run();

  const LiveCounters& m_counters;
  const StatusContext m_context;
  std::atomic<bool> m_done{false};
  std::thread m_thread;
};

} // namespace netprof
