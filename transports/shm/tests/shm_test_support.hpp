#pragma once

// What the shared-memory transport's tests share: a fixture with a segment name of its own, a
// segment as a killed publisher leaves it, and a look through an endpoint's notes.

#include "segment.hpp"
#include "shm_endpoint.hpp"

#include <netprof/transport.hpp>

#include <gtest/gtest.h>

#include <sys/mman.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace netprof::shm::testing {

inline bool any_note_contains(const EndpointFacts& facts, const std::string& text)
{
  return std::any_of(facts.notes.begin(), facts.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

// A segment as a publisher killed outright leaves it: made by a child process that exits
// without closing, unmapping or unlinking it, so its header names a dead PID.
// The PID the segment names (reaped, so dead), or -1 when the child could not make it.
inline pid_t leave_abandoned_segment(const std::string& name)
{
  const pid_t child = fork();
  if (child < 0)
    return -1;
  if (child == 0) {
    try {
      auto created = Segment::create(name, 64 * 1024, History::keep_last);
      (void)created;
      _exit(0); // no destructor runs: the segment stays
    } catch (...) {
      _exit(1);
    }
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return child;
}

// A segment name of its own for each test, removed by name at the end.
class ShmSegment : public ::testing::Test {
protected:
  void SetUp() override
  {
    static int counter = 0;
    name = "test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    path = netprof::shm::object_path(name);
  }
  void TearDown() override { shm_unlink(netprof::shm::object_name(name).c_str()); }

  EndpointSettings settings(History history = History::keep_last,
                            std::size_t capacity = 64 * 1024) const
  {
    EndpointSettings s;
    s.name = name;
    s.ring_capacity = capacity;
    s.requested_bytes = capacity;
    s.history = history;
    return s;
  }

  std::string name;
  std::string path;
};

} // namespace netprof::shm::testing
