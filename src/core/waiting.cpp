#include "waiting.hpp"

#include <netprof/cpu_relax.hpp>

#include <algorithm>
#include <sched.h>

namespace netprof {

Waiter::Waiter(Endpoint& endpoint, MessageSink& sink, WaitStrategy strategy,
               const StopFlag& stop) noexcept
    : m_endpoint(endpoint), m_sink(sink), m_strategy(strategy), m_stop(stop)
{
}

bool Waiter::receive_once(Nanoseconds remaining) noexcept
{
  if (m_strategy == WaitStrategy::block) {
    // While messages come back to back, look a few more times before going to sleep: a sender
    // in full flow then rarely pays the kernel's wake-up of a sleeping receiver per message.
    if (m_flowing) {
      for (int i = 0; i < polls_before_sleeping; ++i) {
        const ReceiveResult result = m_endpoint.receive(m_sink, Nanoseconds::zero());
        if (result != ReceiveResult::timed_out)
          return result != ReceiveResult::failed;
      }
    }
    const ReceiveResult result = m_endpoint.receive(m_sink, std::min(remaining, slice));
    m_flowing = result == ReceiveResult::received;
    return result != ReceiveResult::failed;
  }
  const ReceiveResult result = m_endpoint.receive(m_sink, Nanoseconds::zero());
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
  return m_endpoint.receive(m_sink, Nanoseconds::zero()) != ReceiveResult::failed;
}

} // namespace netprof
