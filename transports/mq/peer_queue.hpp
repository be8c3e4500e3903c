#pragma once

// Opening a queue someone else created: the publisher's queue, for a subscriber; a
// subscriber's, for the publisher. Names in the POSIX queue namespace are anyone's to take, so
// a queue found under a name is used only when it belongs to this process's own user (root
// included: root is not special), as decided by fstat of the open descriptor. No allocation:
// the publisher opens subscribers' queues inside its measured loop.

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace netprof::mq {

// Which queue a descriptor is, to tell a queue from another one created under the same name.
struct QueueIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  friend bool operator==(const QueueIdentity&, const QueueIdentity&) = default;
};

struct PeerQueue {
  enum class Status {
    opened,  // fd is the caller's to close
    absent,  // nothing by that name (yet)
    foreign, // another user's: `owner` says whose
    failed   // mq_open or fstat failed with `error` (EACCES: another user's, unreadable)
  } status = Status::absent;
  int fd = -1;
  QueueIdentity identity;
  std::size_t message_size = 0; // mq_msgsize: the largest message it takes
  std::size_t depth = 0;        // mq_maxmsg
  uid_t owner = 0;
  int error = 0;
};

// Opens `name` with `access` (O_WRONLY or O_RDONLY; O_NONBLOCK is added) and judges its owner.
PeerQueue open_peer_queue(const char* name, int access) noexcept;

// The identity of an open queue, or nothing (all zero) when fstat fails.
QueueIdentity identity_of(int fd) noexcept;

// Why `queue` (not opened) is not used: one line naming `name` and, when known, its owner.
std::string peer_refusal(const std::string& name, const PeerQueue& queue);

} // namespace netprof::mq
