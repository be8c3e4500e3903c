#include "receiving.hpp"

#include <mqueue.h>
#include <poll.h>

#include <cerrno>
#include <ctime>

namespace netprof::mq {

namespace {

Taken taken_by(ssize_t got, std::size_t& length) noexcept
{
  if (got >= 0) {
    length = static_cast<std::size_t>(got);
    return Taken::message;
  }
  // EMSGSIZE cannot happen: the buffer holds the queue's message size, which the kernel
  // enforces on every writer.
  return errno == EAGAIN || errno == EINTR || errno == ETIMEDOUT ? Taken::empty : Taken::failed;
}

} // namespace

Taken take(int polling_fd, std::span<std::byte> buffer, std::size_t& length,
           unsigned& priority) noexcept
{
  return taken_by(
      mq_receive(polling_fd, reinterpret_cast<char*>(buffer.data()), buffer.size(), &priority),
      length);
}

Taken wait_and_take(const OwnedQueue& queue, std::span<std::byte> buffer, std::size_t& length,
                    unsigned& priority, Nanoseconds timeout,
                    transport_common::TimedPoll& timer) noexcept
{
  if (timeout < short_wait) {
    pollfd readable[2] = {{queue.polling_fd(), POLLIN, 0}, {}};
    const int ready = timer.wait(readable, timeout);
    if (ready <= 0)
      return ready == 0 || errno == EINTR ? Taken::empty : Taken::failed;
    // Non-blocking: a stranger that opened the queue to read may have taken it first.
    return take(queue.polling_fd(), buffer, length, priority);
  }
  const auto piece = std::min(timeout, wait_piece).count();
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  constexpr long billion = 1'000'000'000;
  deadline.tv_sec += static_cast<time_t>(piece / billion);
  deadline.tv_nsec += static_cast<long>(piece % billion);
  if (deadline.tv_nsec >= billion) {
    deadline.tv_nsec -= billion;
    ++deadline.tv_sec;
  }
  return taken_by(mq_timedreceive(queue.waiting_fd(), reinterpret_cast<char*>(buffer.data()),
                                  buffer.size(), &priority, &deadline),
                  length);
}

} // namespace netprof::mq
