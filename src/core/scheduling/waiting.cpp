#include "core/scheduling/waiting.hpp"

#include <netprof/cpu_relax.hpp>

#include <algorithm>
#include <ctime>
#include <sched.h>

namespace netprof {

Waiter::Waiter(Endpoint& endpoint, MessageSink& sink, WaitStrategy strategy, const StopFlag& stop,
               const Clock::time_point* latest_arrival) noexcept
    : m_endpoint(endpoint), m_room_waiter(dynamic_cast<RoomWaiter*>(&endpoint)), m_sink(sink),
      m_strategy(strategy), m_stop(stop), m_latest_arrival(latest_arrival)
{
}

bool Waiter::receive_polling(Nanoseconds remaining) noexcept
{
  if (m_strategy == WaitStrategy::poll_then_block) {
    // While messages come back to back, look a few more times before going to sleep: a sender
    // in full flow then rarely pays the kernel's wake-up of a sleeping receiver per message.
    if (m_flowing) {
      for (int i = 0; i < polls_before_sleeping; ++i) {
        const ReceiveResult result = receive(Nanoseconds::zero());
        if (result != ReceiveResult::timed_out)
          return result != ReceiveResult::failed;
      }
    }
    const ReceiveResult result = receive(std::min(remaining, slice));
    m_flowing = result == ReceiveResult::received;
    return result != ReceiveResult::failed;
  }
  const ReceiveResult result = receive(Nanoseconds::zero());
  if (result == ReceiveResult::timed_out) {
    if (m_strategy == WaitStrategy::yield)
      sched_yield();
    else
      cpu_relax();
  }
  return result != ReceiveResult::failed;
}

bool Waiter::poll() noexcept
{
  return receive(Nanoseconds::zero()) != ReceiveResult::failed;
}

bool Waiter::wait_for_room() noexcept
{
  if (!poll())
    return false;
  // A transport with nothing to wait on for room (a ring in shared memory) is given a short
  // nap in a receive, which sleeps too and hears the back channel meanwhile.
  if (sleeps() && m_room_waiter == nullptr)
    return receive(room_nap) != ReceiveResult::failed;
  return wait_for_room_without_receiving();
}

bool Waiter::wait_for_room_without_receiving() noexcept
{
  switch (m_strategy) {
  case WaitStrategy::block:
  case WaitStrategy::poll_then_block:
    // As a blocking sender's send() would: asleep in the kernel until the transport has room.
    if (m_room_waiter == nullptr) {
      const timespec nap{0, static_cast<long>(room_nap.count())};
      nanosleep(&nap, nullptr);
      return true;
    }
    return m_room_waiter->wait_for_room(room_slice) != RoomWait::failed;
  case WaitStrategy::yield:
    // On a pinned CPU the transport's own I/O thread may be what has to run first.
    sched_yield();
    return true;
  case WaitStrategy::spin:
    cpu_relax();
    return true;
  }
  return true;
}

} // namespace netprof
