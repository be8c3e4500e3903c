#include "sink_handover.hpp"

#include <sched.h>

namespace netprof::transport_common {

void SinkHandover::lend(MessageSink& sink) noexcept
{
  m_sink = &sink;
  m_state.store(State::lent); // sequentially consistent: see lent_since()
}

void SinkHandover::revoke() noexcept
{
  State expected = State::lent;
  while (!m_state.compare_exchange_weak(expected, State::kept, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    if (expected == State::kept)
      return; // never lent
    // Borrowed: the listener is taking a batch and echoing it. Let it finish on this core.
    expected = State::lent;
    sched_yield();
  }
}

MessageSink* SinkHandover::borrow() noexcept
{
  State expected = State::lent;
  if (!m_state.compare_exchange_strong(expected, State::borrowed, std::memory_order_acquire,
                                       std::memory_order_relaxed))
    return nullptr;
  return m_sink;
}

void SinkHandover::give_back() noexcept
{
  m_state.store(State::lent, std::memory_order_release);
}

} // namespace netprof::transport_common
