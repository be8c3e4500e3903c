#pragma once

// A queue this process reads: created by it (0600, O_EXCL), held with flock(LOCK_EX) for its
// whole life, so that others can tell it from one a killed process left, and removed when it
// closes. Two descriptors: one non-blocking, to poll, and one blocking, for mq_timedreceive,
// which hands a message over in the same system call that waited for it.

#include "kernel_limits.hpp"
#include "peer_queue.hpp"

#include <cstddef>
#include <string>

namespace netprof::mq {

struct QueuePlan {
  std::string name;             // "/netprof-..."
  std::size_t depth = 0;        // mq_maxmsg
  std::size_t message_size = 0; // mq_msgsize
  std::string in_use_hint;      // what to do when a live process holds the name
};

class OwnedQueue {
public:
  // Creates the queue. One already there is refused, naming its owner, if it is another
  // user's; refused with `in_use_hint` if a live process holds it; otherwise (a killed
  // process's) removed and created anew, which replaced() says. Throws TransportError, the
  // line naming the limit when the kernel refuses the queue's size.
  OwnedQueue(QueuePlan plan, const KernelLimits& limits);
  ~OwnedQueue();

  OwnedQueue(const OwnedQueue&) = delete;
  OwnedQueue& operator=(const OwnedQueue&) = delete;

  int polling_fd() const noexcept { return m_polling; }
  int waiting_fd() const noexcept { return m_waiting; }
  const std::string& name() const noexcept { return m_plan.name; }
  std::size_t depth() const noexcept { return m_plan.depth; }
  std::size_t message_size() const noexcept { return m_plan.message_size; }
  bool replaced() const noexcept { return m_replaced; }
  bool marked() const noexcept { return m_marked; }

private:
  bool try_create(const KernelLimits& limits);
  void take_over_existing();
  void close_descriptors() noexcept;

  QueuePlan m_plan;
  int m_polling = -1;
  int m_waiting = -1;
  QueueIdentity m_identity;
  bool m_replaced = false;
  bool m_marked = false;
};

} // namespace netprof::mq
