#include "core/process/deadline_io.hpp"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <sys/socket.h>

namespace netprof {

int poll_millis(Clock::time_point deadline)
{
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 100));
}

bool wait_for(int fd, short events, Clock::time_point deadline, const StopFlag& stop)
{
  while (!stop.requested() && Clock::now() < deadline) {
    pollfd polled = {fd, events, 0};
    const int ready = poll(&polled, 1, poll_millis(deadline));
    if (ready > 0)
      return true;
    if (ready < 0 && errno != EINTR)
      return false;
  }
  return false;
}

bool write_all(int fd, std::span<const std::byte> bytes, Clock::time_point deadline,
               const StopFlag& stop)
{
  while (!bytes.empty()) {
    const ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(sent));
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLOUT, deadline, stop))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

void read_up_to(int fd, std::vector<std::byte>& out, std::size_t wanted, Clock::time_point deadline,
                const StopFlag& stop)
{
  while (out.size() < wanted) {
    std::byte chunk[256];
    const ssize_t got = recv(fd, chunk, std::min(sizeof chunk, wanted - out.size()), 0);
    if (got > 0) {
      out.insert(out.end(), chunk, chunk + got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd, POLLIN, deadline, stop))
        return;
    } else {
      return;
    }
  }
}

} // namespace netprof
