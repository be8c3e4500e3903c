#pragma once

// How a DDS endpoint of either vendor waits for samples and hands them to the core, for each
// --VENDOR-notify (listener, waitset, poll): the same loops, over the vendor's own take, wait and
// wake-up. A template over the vendor's endpoint (which derives from it), so that every call into
// the vendor is a direct one the compiler may inline: receive() runs per message, and this adds
// no virtual call, allocation or copy to it.
//
// The vendor's endpoint provides, each noexcept:
//   int take(MessageSink& sink, bool always)  at most a batch of samples to the sink (their
//                                             number, -1 on an error), through begin_take() and
//                                             end_take() below
//   bool check_statuses()                     reads its statuses into record_statuses()
//   bool wait(Nanoseconds remaining, bool& data)  waits in its waitset: false on an error or an
//                                             incompatible peer; `data` when samples woke it
//   void wake_core()                          listener: wakes the core's wait after a hand-over
//   void clear_wake()                         listener: resets that wake-up after the wait

#include "dds_endpoint_state.hpp"
#include "sink_handover.hpp"

#include <netprof/cpu_relax.hpp>
#include <netprof/transport.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace netprof::transport_common {

template <typename VendorEndpoint> class DdsReceiveLoops : public DdsEndpointState {
protected:
  using DdsEndpointState::DdsEndpointState;

  // Endpoint::receive: the loop of the endpoint's --VENDOR-notify, once discovery is checked.
  ReceiveResult receive_as_notified(MessageSink& sink, Nanoseconds timeout) noexcept
  {
    // Until discovery completes, every look checks it, so its time is the time it took.
    if (m_incompatible || (!m_discovered_at && !vendor().check_statuses()))
      return ReceiveResult::failed;
    switch (m_notify) {
    case DdsNotify::listener:
      return receive_in_listener(sink, timeout);
    case DdsNotify::poll:
      return receive_by_polling(sink, timeout);
    case DdsNotify::waitset:
      break;
    }
    return receive_in_waitset(sink, timeout);
  }

  // The vendor's receive thread, on samples that arrived, with --VENDOR-notify listener: hands
  // them to the core's sink when the core lent it (it waits in receive()), and wakes the core;
  // else marks data waiting.
  void hand_over_on_listener_thread() noexcept
  {
    MessageSink* sink = m_handover.borrow();
    if (sink == nullptr) {
      mark_data_waiting_unhanded();
      return;
    }
    const int got = vendor().take(*sink, true);
    if (got > 0)
      m_delivered_by_listener += static_cast<std::uint64_t>(got);
    // Only when the core has something to act on (an error, the run's end): a subscriber's
    // data, counted and echoed here, a stream's echoes, or a ping-pong's echo, whose next probe
    // the sink sent from here, would wake it for every sample.
    const bool wake = got < 0 || (got > 0 && sink->wants_control());
    m_core_wakes += wake ? 1 : 0;
    m_handover.give_back();
    // Woken after the echo was written, so the core's wake-up is not in the round trip.
    if (wake)
      vendor().wake_core();
  }

  // The vendor's receive thread, on samples that arrived, with a waitset or polling.
  void mark_data_waiting() noexcept { m_data_waiting.store(true, std::memory_order_release); }

  // Whether take() should look, which it then must: only when samples were announced, unless
  // `always`. A plain load first: a look that finds nothing writes nothing the receive thread
  // shares.
  bool begin_take(bool always) noexcept
  {
    if (!always && !m_data_waiting.load(std::memory_order_acquire))
      return false;
    // Cleared before looking: a sample arriving during the take sets it again.
    m_data_waiting.store(false, std::memory_order_release);
    return true;
  }

  // What take() returns, having taken `taken` samples of which `delivered` carried a message,
  // from a batch of at most `batch`.
  int end_take(int taken, int delivered, int batch) noexcept
  {
    if (taken == batch)
      mark_data_waiting(); // maybe more than a batch waited
    // A batch of nothing but unregistrations still took something: report it as received.
    return taken > 0 && delivered == 0 ? 1 : delivered;
  }

private:
  VendorEndpoint& vendor() noexcept { return static_cast<VendorEndpoint&>(*this); }

  // The listener found the sink not lent: the core takes the samples on its next look. The core
  // may have looked just before and be about to lend and wait on nothing but the wake-up (the
  // listener's waitset has no read condition), so whichever of the two writes second sees the
  // other's: here the lending, after the mark, which then wakes it; in receive_in_listener the
  // mark, after lending, which then skips the wait. Both sequentially consistent (a Dekker pair).
  void mark_data_waiting_unhanded() noexcept
  {
    m_data_waiting.store(true);
    if (m_handover.lent_since())
      vendor().wake_core();
  }

  static Clock::time_point deadline_after(Nanoseconds timeout) noexcept
  {
    return Clock::now() + std::min<Nanoseconds>(timeout, std::chrono::hours(24));
  }

  // Took `got` samples on the core's thread: the result receive() returns, counted.
  ReceiveResult taken_here(int got) noexcept
  {
    if (got < 0)
      return ReceiveResult::failed;
    m_delivered_by_core += static_cast<std::uint64_t>(got);
    return got > 0 ? ReceiveResult::received : ReceiveResult::timed_out;
  }

  ReceiveResult receive_in_waitset(MessageSink& sink, Nanoseconds timeout) noexcept
  {
    if (const int first = vendor().take(sink, false); first != 0)
      return taken_here(first);
    const auto deadline = deadline_after(timeout);
    for (;;) {
      const auto now = Clock::now();
      if (now >= m_next_status_check) {
        if (!vendor().check_statuses())
          return ReceiveResult::failed;
        // Now and then a look that does not trust the flag, should a vendor ever announce a
        // sample before it is in the reader's history.
        if (const int got = vendor().take(sink, true); got != 0)
          return taken_here(got);
      }
      const Nanoseconds remaining = deadline - now;
      if (remaining <= Nanoseconds::zero())
        return ReceiveResult::timed_out;
      bool data = false;
      if (!vendor().wait(remaining, data))
        return ReceiveResult::failed;
      // The read condition may wake us before the listener ran: then the flag is not trusted.
      if (const int got = vendor().take(sink, data); got != 0)
        return taken_here(got);
    }
  }

  ReceiveResult receive_in_listener(MessageSink& sink, Nanoseconds timeout) noexcept
  {
    const std::uint64_t delivered_before = m_delivered_by_listener;
    const auto deadline = deadline_after(timeout);
    for (;;) {
      // What came while the sink was not lent (between two receives, or a non-blocking one).
      if (const int got = vendor().take(sink, false); got != 0)
        return taken_here(got);
      const auto now = Clock::now();
      if (now >= m_next_status_check && !vendor().check_statuses())
        return ReceiveResult::failed;
      const Nanoseconds remaining = deadline - now;
      if (remaining <= Nanoseconds::zero())
        return ReceiveResult::timed_out;
      // Only this wait lends the sink: the core touches nothing behind it until revoke().
      m_handover.lend(sink);
      bool data = false;
      // A sample marked since the take above would wake nobody (mark_data_waiting_unhanded).
      const bool waited = m_data_waiting.load() || vendor().wait(remaining, data);
      m_handover.revoke();
      vendor().clear_wake();
      if (!waited)
        return ReceiveResult::failed;
      if (m_delivered_by_listener != delivered_before)
        return ReceiveResult::received;
    }
  }

  ReceiveResult receive_by_polling(MessageSink& sink, Nanoseconds timeout) noexcept
  {
    const auto deadline = deadline_after(timeout);
    for (;;) {
      if (const int got = vendor().take(sink, true); got != 0)
        return taken_here(got);
      const auto now = Clock::now();
      if (now >= m_next_status_check && !vendor().check_statuses())
        return ReceiveResult::failed;
      if (now >= deadline)
        return ReceiveResult::timed_out;
      cpu_relax(); // between empty takes
    }
  }

  // Set on the receive thread when samples arrive, cleared by take() before it looks: a look
  // that finds it clear costs an atomic load instead of the vendor's take (the core looks often:
  // echoes in a stream, polls before it sleeps, --wait-strategy spin).
  std::atomic<bool> m_data_waiting{true};
  SinkHandover m_handover;
};

} // namespace netprof::transport_common
