#pragma once

// How a bare baseline whose library starts threads (ZeroMQ, NNG, libmosquitto) runs its two
// processes: the fork comes first and each process opens the library on its own side, since no
// library state may cross a fork. The pinger (or sender) stays in the parent, which is the one to
// print the figures and to answer for the exit status.

#include "bare_common.hpp"

#include <sys/prctl.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <utility>

namespace bare {

struct TwoProcesses {
  const char* program;
  const char* parent_role; // as a failure names it: "pinger", "sender"
  const char* child_role;
  // How long the child may take to exit once the parent is done; then it is killed.
  std::chrono::steady_clock::duration child_timeout;
};

// Runs `step`; an exception is said on stderr as "program (role): what", and false.
template <typename Step> bool run_reporting(const char* program, const char* role, Step&& step)
{
  try {
    step();
    return true;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s (%s): %s\n", program, role, error.what());
  }
  return false;
}

// Forks: the child runs child() (dying with the parent, so a killed benchmark leaves no spinning
// process behind); the parent runs parent() and, once the child has exited 0 within
// child_timeout, finish(what parent() returned). What parent() returns lives until the child has
// been reaped, so it may hold open what the child still reads from. Returns main's exit status:
// 0 measured, 1 when anything failed (said on stderr).
template <typename Child, typename Parent, typename Finish>
int run_two_processes(const TwoProcesses& run, Child&& child, Parent&& parent, Finish&& finish)
{
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent_pid = getpid();
  const pid_t child_pid = fork();
  if (child_pid < 0) {
    std::perror("fork");
    return 1;
  }
  if (child_pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent_pid)
      _exit(1);
    const bool done = run_reporting(run.program, run.child_role, child);
    std::fflush(stdout); // _exit does not flush what the child printed
    _exit(done ? 0 : 1);
  }
  decltype(parent()) result{};
  if (!run_reporting(run.program, run.parent_role, [&] { result = parent(); })) {
    kill(child_pid, SIGKILL);
    reap_child(child_pid, std::chrono::seconds(5));
    return 1;
  }
  if (!reap_child(child_pid, run.child_timeout)) {
    std::fprintf(stderr, "%s: the %s did not exit cleanly\n", run.program, run.child_role);
    return 1;
  }
  finish(std::move(result));
  return 0;
}

} // namespace bare
