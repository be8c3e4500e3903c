#include "tick_bounded_read.hpp"

#include <ctime>

namespace netprof::transport_common {

Nanoseconds scheduler_tick() noexcept
{
  static const Nanoseconds tick = [] {
    timespec resolution{};
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) != 0 ||
        (resolution.tv_sec == 0 && resolution.tv_nsec == 0))
      return Nanoseconds(std::chrono::milliseconds(10));
    return Nanoseconds(std::chrono::seconds(resolution.tv_sec)) + Nanoseconds(resolution.tv_nsec);
  }();
  return tick;
}

} // namespace netprof::transport_common
