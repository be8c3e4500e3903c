#pragma once

// How the publisher child of a local pair tells its parent that it got through its set-up
// (endpoint open, payload checked): a pipe whose write end it inherits, named by an environment
// variable. The parent starts the subscriber only then, so a set-up error that both children
// would hit (a -s too large for the transport) is printed once, by the publisher, instead of
// twice and interleaved.

#include <netprof/clock.hpp>

#include <optional>
#include <string>
#include <vector>

namespace netprof {

// The parent's end. Not copyable: it owns the pipe.
class ReadySignal {
public:
  ReadySignal(); // throws TransportError
  ~ReadySignal();
  ReadySignal(const ReadySignal&) = delete;
  ReadySignal& operator=(const ReadySignal&) = delete;

  // The environment for the child that signals: this process's, plus the variable naming the
  // write end (which it inherits).
  std::vector<std::string> child_environment() const;
  // Once that child is started: the parent keeps the read end only, so the pipe reports the
  // end of file when the child exits, and no other child inherits the write end.
  void close_write_end() noexcept;
  // True once the child signalled; false when it exited (or closed the pipe) first, the
  // process was interrupted, or `deadline` passed.
  bool wait(std::optional<Clock::time_point> deadline) noexcept;

private:
  int m_read = -1;
  int m_write = -1;
};

// This process's environment without the variable: for a child that does not signal.
std::vector<std::string> environment_without_ready_signal();

// In the child: tells a waiting parent that set-up is done. Does nothing outside a local pair.
void signal_ready() noexcept;

// In the child, before signal_ready(): true when a parent waits for it, that is, when this
// process is the publisher of a process pair (for its report).
bool local_pair_parent_waits() noexcept;

} // namespace netprof
