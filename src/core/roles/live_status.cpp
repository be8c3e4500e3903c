#include "core/roles/live_status.hpp"

#include "core/scheduling/timer_slack.hpp"

#include <netprof/report.hpp>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unistd.h>

namespace netprof {

namespace {

// The status line and the lines printed beside it take turns at the terminal.
std::mutex terminal_turn;
bool status_showing = false; // guarded by terminal_turn

void clear_status_line()
{
  if (status_showing)
    std::fputs("\r\033[K", stderr);
  status_showing = false;
}

// "7 s", "0.4 s": the seconds a user reads at a glance.
std::string whole_seconds(double seconds)
{
  char text[32];
  std::snprintf(text, sizeof text, seconds >= 1.0 ? "%.0f s" : "%.1f s", seconds);
  return text;
}

} // namespace

void print_beside_status_line(std::FILE* out, const std::string& line)
{
  const std::lock_guard lock(terminal_turn);
  clear_status_line();
  std::fflush(stderr);
  std::fprintf(out, "%s\n", line.c_str());
  std::fflush(out);
}

std::string describe_wait(LivePhase phase, const StatusContext& context, double waited_seconds)
{
  if (phase != LivePhase::waiting_for_subscribers &&
      phase != LivePhase::waiting_for_acknowledgement)
    return {};
  std::string text;
  if (!context.where.empty())
    text += " at " + context.where;
  if (context.wait_seconds > 0) {
    const double left = std::max(0.0, context.wait_seconds - waited_seconds);
    text +=
        ", " + whole_seconds(left) + " of --wait " + whole_seconds(context.wait_seconds) + " left";
  }
  return text;
}

StatusLine::StatusLine(const LiveCounters& counters, StatusContext context)
    : m_counters(counters), m_context(std::move(context)), m_thread([this] { run(); })
{
}

StatusLine::~StatusLine()
{
  m_done.store(true);
  m_thread.join();
  const std::lock_guard lock(terminal_turn);
  std::fputs("\r\033[K", stderr);
  status_showing = false;
}

bool StatusLine::wanted(bool quiet, double expected_seconds) noexcept
{
  return !quiet && expected_seconds >= 2.0 && isatty(STDERR_FILENO) == 1;
}

std::string describe_phase(LivePhase phase, std::uint32_t expected, std::uint32_t announced)
{
  switch (phase) {
  case LivePhase::setting_up:
    break;
  case LivePhase::waiting_for_subscribers:
    return "waiting for " + std::to_string(expected) +
           (expected == 1 ? " subscriber (" : " subscribers (") + std::to_string(announced) +
           " announced)";
  case LivePhase::waiting_for_acknowledgement:
    return "waiting for the publisher's acknowledgement";
  case LivePhase::waiting_for_data:
    return "acknowledged, waiting for the publisher's first data";
  case LivePhase::warming_up:
    return "warming up";
  case LivePhase::measuring:
    return "measuring";
  case LivePhase::ending:
    return "ending";
  }
  return "setting up";
}

void StatusLine::run()
{
  use_minimal_timer_slack();
  const auto start = Clock::now();
  std::uint64_t last_sent = 0, last_received = 0;
  auto last = start;
  LivePhase shown_phase = LivePhase::setting_up;
  auto phase_since = start;
  while (!m_done.load()) {
    for (int i = 0; i < 20 && !m_done.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (m_done.load())
      break;
    const auto now = Clock::now();
    const std::uint64_t sent = m_counters.sent.load(std::memory_order_relaxed);
    const std::uint64_t received = m_counters.received.load(std::memory_order_relaxed);
    const double interval = to_seconds(now - last);
    const double rate =
        interval > 0
            ? static_cast<double>((sent - last_sent) + (received - last_received)) / interval
            : 0.0;
    std::string line = "["; // built by appending: g++ 12 misreports `"[" + string` (-Wrestrict)
    line += format_duration_ns(static_cast<double>((now - start).count()));
    line += "] ";
    const LivePhase phase = m_counters.phase.load(std::memory_order_relaxed);
    if (phase != shown_phase) {
      // The wait began before the first tick: a role waits from its start.
      phase_since = shown_phase == LivePhase::setting_up ? start : now;
      shown_phase = phase;
    }
    line += describe_phase(phase, m_counters.subscribers_expected.load(std::memory_order_relaxed),
                           m_counters.subscribers_announced.load(std::memory_order_relaxed));
    line += describe_wait(phase, m_context, to_seconds(now - phase_since));
    // A publisher sends and hears echoes, a subscriber receives: show what moves.
    if (sent > 0)
      line += "  sent " + format_count(sent);
    if (received > 0)
      line += "  received " + format_count(received);
    if (const auto echoes = m_counters.echoes.load(std::memory_order_relaxed); echoes > 0)
      line += "  echoes " + format_count(echoes);
    line += "  " + format_rate(rate, "msg");
    {
      const std::lock_guard lock(terminal_turn);
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      std::fflush(stderr);
      status_showing = true;
    }
    last = now;
    last_sent = sent;
    last_received = received;
  }
}

} // namespace netprof
