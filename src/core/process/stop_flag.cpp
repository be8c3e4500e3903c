#include "core/process/stop_flag.hpp"

#include "core/process/member_wait.hpp"

#include <csignal>

namespace netprof {

namespace {

StopFlag g_stop_flag;

extern "C" void on_stop_signal(int)
{
  g_stop_flag.request();
}

} // namespace

void StopFlag::request() noexcept
{
  m_requested.store(true, std::memory_order_seq_cst);
  if (const int doorbell = m_doorbell.load(std::memory_order_seq_cst); doorbell >= 0)
    signal_event_fd(doorbell);
}

int StopFlag::doorbell() noexcept
{
  if (const int made = m_doorbell.load(std::memory_order_seq_cst); made >= 0)
    return made;
  // Made once, by the one thread that waits on it (the local pair's), and never closed: a
  // signal handler may ring it until the process ends.
  const int doorbell = open_event_fd();
  m_doorbell.store(doorbell, std::memory_order_seq_cst);
  // A request that came before the store did not see it: ring for it. (Of the two seq_cst
  // store-then-load sequences, at least one sees the other's store.)
  if (m_requested.load(std::memory_order_seq_cst))
    signal_event_fd(doorbell);
  return doorbell;
}

StopFlag& process_stop_flag() noexcept
{
  return g_stop_flag;
}

void install_stop_signal_handlers(SecondInterrupt second)
{
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking receive returns EINTR so the loop sees the flag at once. A second
  // Ctrl-C ends the process where it stands (SA_RESETHAND), for a user who will not wait.
  action.sa_flags =
      second == SecondInterrupt::ends_the_process ? static_cast<int>(SA_RESETHAND) : 0;
  sigaction(SIGINT, &action, nullptr);
  // SIGTERM and SIGHUP stop the run however often they come: a local pair's children get them
  // twice when a whole process group is signalled (`timeout`, `kill -- -PGID`, a closing
  // terminal), once from the sender and once forwarded by their parent, and dying at the
  // second would leave their shared-memory segment behind. The terminal closing is a stop too:
  // by default it would kill the process before it removes what it made.
  action.sa_flags = 0;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  // A reader of our output that went away (`netprof ... | head`) must not kill the run before
  // it cleans up either: writes to it fail instead, and the run ends as it would have.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

} // namespace netprof
