#include "owned_queue.hpp"

#include "abandoned_queues.hpp"

#include <netprof/errors.hpp>

#include <fcntl.h>
#include <mqueue.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace netprof::mq {

namespace {

// A clean-up elsewhere may take a new queue for abandoned in the moment between its creation
// and its lock, and remove it; creating is then tried again, this many times.
constexpr int attempts = 5;

bool still_named(const std::string& name, const QueueIdentity& identity) noexcept
{
  const mqd_t fd = mq_open(name.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd == static_cast<mqd_t>(-1))
    return false;
  const bool same = identity_of(fd) == identity;
  mq_close(fd);
  return same;
}

} // namespace

OwnedQueue::OwnedQueue(QueuePlan plan, const KernelLimits& limits) : m_plan(std::move(plan))
{
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (try_create(limits)) {
      m_marked = mark(m_plan.name);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  throw TransportError("cannot create message queue " + m_plan.name +
                       ": another process keeps creating or removing it");
}

OwnedQueue::~OwnedQueue()
{
  // Only if the name is still ours: the lock keeps netprof from replacing it, not a stranger.
  if (still_named(m_plan.name, m_identity))
    mq_unlink(m_plan.name.c_str());
  if (m_marked)
    unmark(m_plan.name);
  close_descriptors();
}

bool OwnedQueue::try_create(const KernelLimits& limits)
{
  mq_attr attributes{};
  attributes.mq_maxmsg = static_cast<long>(m_plan.depth);
  attributes.mq_msgsize = static_cast<long>(m_plan.message_size);
  m_polling =
      mq_open(m_plan.name.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_NONBLOCK, 0600, &attributes);
  if (m_polling == static_cast<mqd_t>(-1)) {
    const int error = errno;
    if (error != EEXIST)
      throw TransportError(
          creation_refusal(m_plan.name, error, m_plan.depth, m_plan.message_size, limits));
    take_over_existing();
    return false;
  }
  fchmod(m_polling, 0600); // whatever the umask took away, the owner reads and writes it
  m_identity = identity_of(m_polling);
  // A clean-up elsewhere that found it before it was locked takes it for abandoned: it holds
  // the lock for a moment, or has removed the queue already.
  if (flock(m_polling, LOCK_EX | LOCK_NB) != 0) {
    if (still_named(m_plan.name, m_identity))
      mq_unlink(m_plan.name.c_str());
    close_descriptors();
    return false;
  }
  if (!still_named(m_plan.name, m_identity)) {
    close_descriptors();
    return false;
  }
  m_waiting = mq_open(m_plan.name.c_str(), O_RDONLY);
  if (m_waiting == static_cast<mqd_t>(-1) || identity_of(m_waiting) != m_identity) {
    mq_unlink(m_plan.name.c_str());
    close_descriptors();
    return false;
  }
  return true;
}

// Something holds the name: another user's queue, a live process's, or an abandoned one,
// which is removed so the next attempt can create the name afresh.
void OwnedQueue::take_over_existing()
{
  PeerQueue existing = open_peer_queue(m_plan.name.c_str(), O_RDONLY);
  if (existing.status == PeerQueue::Status::absent)
    return; // gone meanwhile
  if (existing.status != PeerQueue::Status::opened)
    throw TransportError(peer_refusal(m_plan.name, existing));
  const bool held = flock(existing.fd, LOCK_EX | LOCK_NB) != 0;
  if (!held) {
    mq_unlink(m_plan.name.c_str());
    m_replaced = true;
  }
  mq_close(existing.fd);
  if (held)
    throw TransportError("message queue " + m_plan.name +
                         " is in use by a live process: " + m_plan.in_use_hint);
}

void OwnedQueue::close_descriptors() noexcept
{
  if (m_waiting != -1)
    mq_close(m_waiting);
  if (m_polling != -1)
    mq_close(m_polling);
  m_waiting = -1;
  m_polling = -1;
}

} // namespace netprof::mq
