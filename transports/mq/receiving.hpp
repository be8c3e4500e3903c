#pragma once

// How both ends take messages from the queue they own: a poll never blocks (the non-blocking
// descriptor); a wait blocks in mq_timedreceive on the blocking one, which hands the message
// over in the call that waited for it, so a wake-up costs one system call. A wait shorter than
// short_wait (a paced sender's, between its probes) sleeps in ppoll until a timerfd instead,
// then takes the message: that wake-up costs a second call but no cancel of the call's own
// timer, which cost more (TimedPoll; docs/transport-mq.md). Each receive() then drains what
// else is waiting, up to a batch: the look that finds the queue empty is a system call of its
// own (about 2 us on a VM), but it comes after the sink had the message, so it never delays a
// latency sample, only the caller's next step.

#include "owned_queue.hpp"

#include "common/timed_poll.hpp"

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>

#include <chrono>
#include <cstddef>
#include <span>

namespace netprof::mq {

// mq_timedreceive takes a CLOCK_REALTIME deadline, which a clock step could stretch, so a wait
// is cut into pieces this long, each against the monotonic deadline; the caller's
// housekeeping runs between pieces.
inline constexpr Nanoseconds wait_piece = std::chrono::milliseconds(100);
// Waits shorter than this end on a timerfd. A blocking ping-pong's waits are longer (a slice
// of the run, tens of milliseconds), so it makes the calls a blocking mq program makes.
inline constexpr Nanoseconds short_wait = std::chrono::milliseconds(10);
// Messages a single receive() takes, delivered or dropped (a stranger's), before it returns.
inline constexpr std::size_t receive_batch = 64;

enum class Taken { message, empty, failed };

// One message into `buffer` (at least the queue's message size), without waiting.
Taken take(int polling_fd, std::span<std::byte> buffer, std::size_t& length,
           unsigned& priority) noexcept;
// Waits up to `timeout` (cut to wait_piece) for one message; `timer` ends a short wait.
Taken wait_and_take(const OwnedQueue& queue, std::span<std::byte> buffer, std::size_t& length,
                    unsigned& priority, Nanoseconds timeout,
                    transport_common::TimedPoll& timer) noexcept;

// Endpoint::receive over `queue`, whose short waits end on `timer`. `deliver(message, priority)`
// returns true when it handed the message to the sink, false when it dropped it; `housekeeping()`
// runs before each piece of a wait and returns false to fail the receive.
template <typename Deliver, typename Housekeeping>
ReceiveResult receive_from(const OwnedQueue& queue, std::span<std::byte> buffer,
                           transport_common::TimedPoll& timer, Nanoseconds timeout,
                           Deliver&& deliver, Housekeeping&& housekeeping) noexcept
{
  std::size_t length = 0;
  unsigned priority = 0;
  bool delivered = false;
  const auto drain = [&]() noexcept {
    for (std::size_t looked = 0; looked < receive_batch; ++looked) {
      const Taken taken = take(queue.polling_fd(), buffer, length, priority);
      if (taken != Taken::message)
        return taken;
      delivered = deliver(buffer.first(length), priority) || delivered;
    }
    return Taken::message;
  };
  if (drain() == Taken::failed)
    return ReceiveResult::failed;
  if (delivered)
    return ReceiveResult::received;
  if (timeout <= Nanoseconds::zero())
    return ReceiveResult::timed_out;
  const auto deadline = Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  for (auto now = Clock::now(); now < deadline; now = Clock::now()) {
    if (!housekeeping())
      return ReceiveResult::failed;
    const Taken taken = wait_and_take(queue, buffer, length, priority, deadline - now, timer);
    if (taken == Taken::failed)
      return ReceiveResult::failed;
    if (taken == Taken::message)
      delivered = deliver(buffer.first(length), priority);
    if (delivered)
      return drain() == Taken::failed ? ReceiveResult::failed : ReceiveResult::received;
  }
  return ReceiveResult::timed_out;
}

} // namespace netprof::mq
