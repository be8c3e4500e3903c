#pragma once

#include <chrono>
#include <cstdint>

namespace netprof {

// One monotonic clock for every measurement; never the wall clock, which can jump.
using Clock = std::chrono::steady_clock;
using Nanoseconds = std::chrono::nanoseconds;

// Raw int64 nanoseconds exist only at the wire boundary (the encoded header).
inline std::int64_t to_wire_ns(Clock::time_point t) noexcept
{
  return std::chrono::duration_cast<Nanoseconds>(t.time_since_epoch()).count();
}

inline Clock::time_point from_wire_ns(std::int64_t ns) noexcept
{
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(Nanoseconds(ns)));
}

inline double to_seconds(Nanoseconds d) noexcept
{
  return std::chrono::duration<double>(d).count();
}

inline Nanoseconds from_seconds(double seconds) noexcept
{
  return std::chrono::duration_cast<Nanoseconds>(std::chrono::duration<double>(seconds));
}

} // namespace netprof
