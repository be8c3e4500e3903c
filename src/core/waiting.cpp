#include "waiting.hpp"

#include <algorithm>

namespace netprof {

Waiter::Waiter(Endpoint& endpoint, MessageSink& sink, WaitStrategy strategy,
               const StopFlag& stop) noexcept
    : m_endpoint(endpoint), m_sink(sink), m_strategy(strategy), m_stop(stop)
{
}

bool Waiter::receive_once(Nanoseconds remaining) noexcept
{
  const Nanoseconds timeout =
      m_strategy == WaitStrategy::spin ? Nanoseconds::zero() : std::min(remaining, slice);
  return m_endpoint.receive(m_sink, timeout) != ReceiveResult::failed;
}

bool Waiter::poll() noexcept
{
  return m_endpoint.receive(m_sink, Nanoseconds::zero()) != ReceiveResult::failed;
}

} // namespace netprof
