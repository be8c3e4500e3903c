#pragma once

// The configurations the role tests run a publisher (id 0) and a subscriber (id 1) with, over
// the in-memory link: short waits, so a test that goes wrong fails in seconds.

#include <netprof/config.hpp>

#include <cstdint>

namespace netprof::testing {

inline RunConfig in_memory_config(Role role)
{
  RunConfig config;
  config.role = role;
  config.id = role == Role::publisher ? 0 : 1;
  config.transport_name = "in-memory";
  config.wait_seconds = 5;
  return config;
}

// `count` measured messages after `warmup_count`, as fast as the publisher's loop goes.
inline RunConfig counted_config(Role role, std::uint64_t count, std::uint64_t warmup_count)
{
  RunConfig config = in_memory_config(role);
  config.count = count;
  config.warmup_count = warmup_count;
  config.probe_hz = 1e6; // as many probes as the loop allows
  config.idle_timeout_seconds = 2;
  return config;
}

// A paced stream (2000 msg/s, probes at 200 Hz) of `test_seconds`.
inline RunConfig paced_config(Role role, double test_seconds)
{
  RunConfig config = in_memory_config(role);
  config.test_seconds = test_seconds;
  config.send_hz = 2000;
  config.warmup_count = 20;
  config.probe_hz = 200;
  config.idle_timeout_seconds = 3;
  return config;
}

} // namespace netprof::testing
