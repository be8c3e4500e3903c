#include "peer_queue.hpp"

#include "common/user_names.hpp"

#include <fcntl.h>
#include <mqueue.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace netprof::mq {

PeerQueue open_peer_queue(const char* name, int access) noexcept
{
  PeerQueue queue;
  const mqd_t fd = mq_open(name, access | O_NONBLOCK);
  if (fd == static_cast<mqd_t>(-1)) {
    queue.error = errno;
    queue.status = queue.error == ENOENT ? PeerQueue::Status::absent : PeerQueue::Status::failed;
    return queue;
  }
  struct stat info {};
  mq_attr attributes{};
  if (fstat(fd, &info) != 0 || mq_getattr(fd, &attributes) != 0) {
    queue.error = errno;
    queue.status = PeerQueue::Status::failed;
    mq_close(fd);
    return queue;
  }
  queue.owner = info.st_uid;
  if (info.st_uid != geteuid()) {
    queue.status = PeerQueue::Status::foreign;
    mq_close(fd);
    return queue;
  }
  queue.status = PeerQueue::Status::opened;
  queue.fd = fd;
  queue.identity = {info.st_dev, info.st_ino};
  queue.message_size = static_cast<std::size_t>(std::max(attributes.mq_msgsize, 0L));
  queue.depth = static_cast<std::size_t>(std::max(attributes.mq_maxmsg, 0L));
  return queue;
}

QueueIdentity identity_of(int fd) noexcept
{
  struct stat info {};
  if (fstat(fd, &info) != 0)
    return {};
  return {info.st_dev, info.st_ino};
}

std::string peer_refusal(const std::string& name, const PeerQueue& queue)
{
  switch (queue.status) {
  case PeerQueue::Status::foreign:
    return "message queue " + name + " belongs to another user, " +
           transport_common::user_label(queue.owner) +
           ": netprof does not use another user's queue (choose another --mq NAME)";
  case PeerQueue::Status::failed:
    if (queue.error == EACCES || queue.error == EPERM)
      return "permission denied opening message queue " + name +
             ": it belongs to another user (choose another --mq NAME)";
    return "cannot open message queue " + name + ": " +
           std::generic_category().message(queue.error);
  case PeerQueue::Status::absent:
    return "message queue " + name + " does not exist";
  case PeerQueue::Status::opened:
    break;
  }
  return {};
}

} // namespace netprof::mq
