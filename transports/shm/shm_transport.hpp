#pragma once

// Shared memory on one host: --shm NAME. The publisher creates /dev/shm/netprof-NAME holding a
// lock-free ring that every subscriber reads with its own cursor, plus one back ring per
// subscriber for hellos, probe echoes and final counters. See docs/transport-shm.md.

#include <netprof/registry.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace netprof {

TransportDescriptor shm_transport();

namespace shm {

inline constexpr std::size_t default_ring_capacity = std::size_t{1} << 20;
inline constexpr std::size_t smallest_ring_capacity = 4096;

// The ring capacity -q asks for: 0 is the default (1 MiB), anything else is rounded up to a
// power of two (at least 4 KiB). Says what it decided in `notes`; throws UsageError above
// 1 GiB.
std::size_t ring_capacity_for(std::size_t queue_length_bytes, std::vector<std::string>& notes);

// Throws UsageError unless NAME is 1 to 200 of [A-Za-z0-9._-], not starting with '.'.
void check_segment_name(const std::string& name);

} // namespace shm

} // namespace netprof
