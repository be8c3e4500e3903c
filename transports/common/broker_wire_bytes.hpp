#pragma once

// Counting what a broker writes for one message (a Delivery's wire_bytes) means counting the
// digits of its lengths: MQTT writes a packet's remaining length base 128, a byte a digit; RESP
// writes its lengths in decimal. It runs for every message received: the base is a template
// argument, so that every division is by a constant (a shift for 128), even where not inlined.

#include <cstddef>

namespace netprof::transport_common {

// The digits `value` takes written in `base`: 1 for 0.
template <std::size_t base> constexpr std::size_t digits_in_base(std::size_t value) noexcept
{
  static_assert(base >= 2);
  std::size_t digits = 1;
  while (value >= base) {
    value /= base;
    ++digits;
  }
  return digits;
}

} // namespace netprof::transport_common
