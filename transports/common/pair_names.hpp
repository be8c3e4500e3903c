#pragma once

// The names a run gives what it creates on this host (a shared-memory segment, message
// queues): plain enough for any file system, and for a local pair never used again, so that a
// later pair knows what a killed one left behind.

#include <string>

namespace netprof::transport_common {

// 1 to 200 of [A-Za-z0-9._-], not starting with '.'.
bool is_plain_name(const std::string& name) noexcept;

inline constexpr const char* pair_prefix = "pair-";

// pair-PID-RANDOM, 64 random bits: nobody can guess it ahead.
std::string unique_pair_name();

} // namespace netprof::transport_common
