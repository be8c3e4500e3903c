#pragma once

// Whether a subscriber's final counters could be true of this run. Forged counters once showed
// a subscriber at 2.00 T msg/s over 1 ns; these checks need no secret, only what the publisher
// knows it sent and when, so they hold against anyone who can reach the publisher.

#include <netprof/clock.hpp>
#include <netprof/wire.hpp>

#include <cstdint>

namespace netprof {

struct CounterLimits {
  std::uint64_t sent = 0;        // measured messages sent so far (all of them, once END went)
  std::uint64_t probes_sent = 0; // measured probes among them
  std::uint64_t payload_size = 0;
  std::uint64_t records_per_message = 0;
  Nanoseconds measured_so_far{}; // from the start of the measured phase to now
};

// At most one message per nanosecond, and a terabyte a second: well beyond any transport
// (shared memory moves about 40 GB/s on a current core) and well short of what a forger needs
// to make a run look better than it was.
inline constexpr double max_plausible_messages_per_second = 1e9;
inline constexpr double max_plausible_bytes_per_second = 1e12;

// Why the counters cannot be true (a short phrase for the report), or nullptr when they can.
const char* implausibility(const wire::SubscriberCounters& counters,
                           const CounterLimits& limits) noexcept;

} // namespace netprof
