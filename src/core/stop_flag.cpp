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
  // The terminal closing is a stop too: by default it would kill the process before it removes
  // what it made (a shared-memory segment, a local pair's children).
  sigaction(SIGHUP, &action, nullptr);
  // A reader of our output that went away (`netprof ... | head`) must not kill the run before
  // it cleans up either: writes to it fail instead, and the run ends as it would have.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

} // namespace netprof
