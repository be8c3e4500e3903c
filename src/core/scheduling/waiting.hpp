#pragma once

#include <netprof/clock.hpp>
#include <netprof/config.hpp>
#include <netprof/transport.hpp>

#include "core/process/stop_flag.hpp"

#include <algorithm>

namespace netprof {

// How the measured loops wait for the next message: the one place that knows the wait
// strategies. Blocking waits are cut into slices so a stop request or a periodic duty
// (resending a hello) is never late by more than a slice.
class Waiter {
public:
  // `latest_arrival`, when given, is where `sink` stamps each message's arrival (the roles'
  // OpeningSink): a soft deadline is then judged by that stamp after a receive that delivered.
  Waiter(Endpoint& endpoint, MessageSink& sink, WaitStrategy strategy, const StopFlag& stop,
         const Clock::time_point* latest_arrival = nullptr) noexcept;

  // Whether a deadline may pass by a while. A soft one (a look at housekeeping every few
  // milliseconds) may be late by up to a slice and a scheduler tick: every wait is then a whole
  // slice, which lets a transport keep one timeout on a blocking read (SO_RCVTIMEO) instead of
  // polling first, or setting it anew for every call. A pacer's or a probe's deadline is exact.
  enum class Deadline { exact, soft };

  // Delivers messages until `done()` is true, the deadline passes or a stop is requested.
  // Returns false only on a transport failure.
  template <typename Done>
  bool wait_until(Clock::time_point deadline, Done&& done, Deadline kind = Deadline::exact) noexcept
  {
    while (!done()) {
      if (m_stop.requested())
        return true;
      const auto now = now_for(kind);
      if (now >= deadline)
        return true;
      const Nanoseconds remaining = kind == Deadline::soft ? slice : deadline - now;
      // Polling, a clock read costs more than an empty poll of shared memory; read it only
      // every few polls. A blocking receive already waits in the kernel.
      const int polls = sleeps() ? 1 : polls_per_clock_read;
      for (int i = 0; i < polls && !done(); ++i)
        if (!receive_once(remaining))
          return false;
    }
    return true;
  }

  // One receive: non-blocking when spinning, else blocking for at most min(remaining, slice).
  // Inline: a blocking receiver comes here for every message.
  bool receive_once(Nanoseconds remaining) noexcept
  {
    if (m_strategy == WaitStrategy::block) // straight into the kernel, as a blocking recv()
      return receive(std::min(remaining, slice)) != ReceiveResult::failed;
    return receive_polling(remaining);
  }

  // Drains whatever is waiting without blocking.
  bool poll() noexcept;

  // Between attempts to send on a transport that pushed back: drains the back channel, then
  // waits for room the strategy's way (block: asleep in the kernel until the transport has
  // room, or a slice passes, where the endpoint is a RoomWaiter; in a short receive where it
  // is not). False only on a transport failure.
  bool wait_for_room() noexcept;

  // The same wait, but receiving nothing: for a send made from inside a message handler
  // (an echo), where a receive would re-enter it. Where the endpoint cannot wait for room,
  // a blocking strategy naps (room_nap) instead. False only on a transport failure.
  bool wait_for_room_without_receiving() noexcept;

  // Whether this strategy sleeps in the kernel when nothing has come.
  bool sleeps() const noexcept { return netprof::sleeps(m_strategy); }

  static constexpr Nanoseconds slice = std::chrono::milliseconds(20);
  // How long one wait for room may sleep before the sender tries again (and checks --wait).
  static constexpr Nanoseconds room_slice = std::chrono::milliseconds(1);
  // A transport with nothing to wait on for room: a sleep this long in a receive instead.
  static constexpr Nanoseconds room_nap = std::chrono::microseconds(50);
  // Few enough that a paced sender overshoots its due time by only a few empty polls.
  static constexpr int polls_per_clock_read = 16;
  // poll-then-block: non-blocking looks before sleeping while messages keep coming (about as
  // long as a few small messages take to arrive back to back).
  static constexpr int polls_before_sleeping = 8;
  // A soft deadline judged by arrival stamps: the clock itself every this many, in case a
  // message's handling took long (an echo waiting for room).
  static constexpr int stamps_per_clock_read = 16;

private:
  // The time a deadline is judged by. A receive since the last judgment that delivered
  // stamped its message's arrival a moment ago (a sleeping receive just now, a spinning one
  // at most polls_per_clock_read polls back): a soft deadline, which may be a slice late
  // anyway, takes that stamp and saves a clock read per message, one of the two a blocking
  // subscriber made for each.
  Clock::time_point now_for(Deadline kind) noexcept
  {
    const bool stamped = m_delivered;
    m_delivered = false;
    if (kind == Deadline::soft && stamped && m_latest_arrival != nullptr &&
        ++m_stamps_used % stamps_per_clock_read != 0)
      return *m_latest_arrival;
    return Clock::now();
  }
  ReceiveResult receive(Nanoseconds timeout) noexcept
  {
    const ReceiveResult result = m_endpoint.receive(m_sink, timeout);
    m_delivered = m_delivered || result == ReceiveResult::received;
    return result;
  }
  // receive_once for the strategies that poll (spin, yield, poll-then-block).
  bool receive_polling(Nanoseconds remaining) noexcept;

  Endpoint& m_endpoint;
  RoomWaiter* m_room_waiter; // the endpoint's, asked for once; null: it has none
  MessageSink& m_sink;
  WaitStrategy m_strategy;
  const StopFlag& m_stop;
  bool m_flowing = false; // poll-then-block: the last blocking receive found a message
  const Clock::time_point* m_latest_arrival;
  bool m_delivered = false; // a receive since the last now_for() delivered (and so stamped)
  unsigned m_stamps_used = 0;
};

} // namespace netprof
