#include "waiting.hpp"

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
  if (m_strategy == WaitStrategy::block)
    return m_endpoint.receive(m_sink, std::min(remaining, slice)) != ReceiveResult::failed;
  const ReceiveResult result = m_endpoint.receive(m_sink, Nanoseconds::zero());
  if (result == ReceiveResult::timed_out && m_strategy == WaitStrategy::yield)
    sched_yield();
  return result != ReceiveResult::failed;
}

bool Waiter::poll() noexcept
{
  return m_endpoint.receive(m_sink, Nanoseconds::zero()) != ReceiveResult::failed;
}

} // namespace netprof
