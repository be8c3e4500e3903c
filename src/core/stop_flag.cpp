#include "stop_flag.hpp"

#include <csignal>

namespace netprof {

namespace {

StopFlag g_stop_flag;

extern "C" void on_stop_signal(int) { g_stop_flag.request(); }

} // namespace

StopFlag& process_stop_flag() noexcept { return g_stop_flag; }

void install_stop_signal_handlers()
{
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking receive returns EINTR so the loop sees the flag at once.
  action.sa_flags = static_cast<int>(SA_RESETHAND);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

} // namespace netprof
