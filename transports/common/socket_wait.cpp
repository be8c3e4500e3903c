#include "socket_wait.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace netprof::transport_common {

timespec timespec_of(Nanoseconds wait) noexcept
{
  const auto count = std::max<std::int64_t>(wait.count(), 0);
  return {static_cast<time_t>(count / 1'000'000'000), static_cast<long>(count % 1'000'000'000)};
}

int await_connect(int fd, Clock::time_point deadline) noexcept
{
  for (;;) {
    const auto now = Clock::now();
    if (now >= deadline)
      return ETIMEDOUT;
    pollfd watched{fd, POLLOUT, 0};
    const timespec limit = timespec_of(deadline - now);
    const int ready = ppoll(&watched, 1, &limit, nullptr);
    if (ready > 0)
      break;
    if (ready < 0 && errno != EINTR)
      return errno;
  }
  int error = 0;
  socklen_t length = sizeof error;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
    return errno;
  return error;
}

} // namespace netprof::transport_common
