#pragma once

// How long a blocking read may wait and still end by a deadline, for the transports that wait
// in one blocking read (SO_RCVTIMEO) as a blocking program does.

#include <netprof/clock.hpp>

#include <algorithm>

namespace netprof::transport_common {

// The kernel's scheduler tick (the resolution of CLOCK_MONOTONIC_COARSE), in which SO_RCVTIMEO
// is counted; 10 ms, the longest a Linux tick is, when the clock does not say. Read once.
Nanoseconds scheduler_tick() noexcept;

// The SO_RCVTIMEO for a read that must end within `timeout`. The kernel rounds that timeout up
// to whole ticks and wakes on a tick: a read that finds nothing ends up to two ticks after it
// (4 ms late was measured here, HZ 250), which a paced sender would wait for and charge to the
// transport as latency. Zero when `timeout` leaves no room for a read: wait in ppoll, whose
// timer is exact.
constexpr Nanoseconds tick_bounded_read_timeout(Nanoseconds timeout, Nanoseconds tick) noexcept
{
  return std::max(timeout - 2 * tick, Nanoseconds::zero());
}

inline Nanoseconds tick_bounded_read_timeout(Nanoseconds timeout) noexcept
{
  return tick_bounded_read_timeout(timeout, scheduler_tick());
}

} // namespace netprof::transport_common
