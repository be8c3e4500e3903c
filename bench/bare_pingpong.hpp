#pragma once

// What the bare ping-pongs of SizedRoundTrips share (bare_mqtt_pingpong, bare_redis_pingpong,
// bare_nng_pingpong, bare_fastdds_pingpong; still no netprof code): the timed loop of round
// trips whose pings carry their sequence number in their first 8 bytes, and the pinger in the
// parent process printing the line. Each baseline supplies its own exchange of a ping and echo.

#include "bare_two_processes.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace bare {

// What a round trip's echo brought back, read before the transport reuses or frees its bytes.
struct Echo {
  Clock::time_point received_at;
  std::size_t size;
  std::uint64_t sequence;
};

// The sequence number in the first 8 bytes of `bytes` (which has at least 8).
inline std::uint64_t sequence_in(const void* bytes) noexcept
{
  std::uint64_t sequence = 0;
  std::memcpy(&sequence, bytes, sizeof sequence);
  return sequence;
}

// runs.warmup then runs.iterations round trips: `ping` carries each one's sequence number in its
// first 8 bytes, the clock is read before exchange() sends it, and the echo exchange() returns
// must be runs.echo_size bytes carrying the same number. Returns the measured round trips, in
// nanoseconds. A template, so that the exchange is inlined into the loop as each baseline wrote
// it before: no call, allocation or clock read is added per round trip.
template <typename Exchange>
std::vector<std::int64_t> time_round_trips(const SizedRoundTrips& runs,
                                           std::vector<std::byte>& ping, Exchange&& exchange)
{
  std::vector<std::int64_t> rtts;
  rtts.reserve(runs.iterations);
  for (std::uint64_t sequence = 0; sequence < runs.warmup + runs.iterations; ++sequence) {
    std::memcpy(ping.data(), &sequence, sizeof sequence);
    const auto sent_at = Clock::now();
    const Echo echo = exchange();
    if (echo.size != runs.echo_size || echo.sequence != sequence)
      throw std::runtime_error("the echo does not match the ping");
    if (sequence >= runs.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(echo.received_at - sent_at).count());
  }
  return rtts;
}

// Runs a ping-pong's two processes: the ponger in the child, the pinger (returning its round
// trips) in the parent, which prints one JSON line: print_own_fields() prints its first fields,
// each followed by a comma, then print_round_trips the figures. Returns main's exit status.
template <typename Ponger, typename Pinger, typename PrintOwnFields>
int run_pingpong(const char* program, Ponger&& ponger, Pinger&& pinger,
                 PrintOwnFields&& print_own_fields)
{
  return run_two_processes({program, "pinger", "ponger", std::chrono::seconds(10)},
                           std::forward<Ponger>(ponger), std::forward<Pinger>(pinger),
                           [&](std::vector<std::int64_t> rtts) {
                             print_own_fields();
                             print_round_trips(std::move(rtts));
                           });
}

} // namespace bare
