#pragma once

// What the core's option rows are made of: the ranges its numbers share and one call per spec,
// for the files that add the rows of each --help group (option_groups.hpp).

#include "option_table.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace netprof::cli {

inline constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint64_t max_size = std::numeric_limits<std::size_t>::max();
// Longest meaningful duration for a seconds option: a day is plenty for a profiling run and
// keeps every conversion to integer nanoseconds far from overflow.
inline constexpr double max_seconds = 86'400.0;
inline constexpr double max_hz = 1e9;

WholeNumber whole(std::uint64_t min, std::uint64_t max);

// A byte count, taking K, M and G (1024-based) as sweep.py's --sizes does.
WholeNumber bytes(std::uint64_t min, std::uint64_t max);

// Seconds from a millisecond to a day (option_rows.cpp says why not less).
RealNumber positive_seconds();

// The table's rows are dense, so its specs are made in one call.
OptionSpec spec(const char* names, const char* value_name, ValueRule rule,
                std::optional<std::string> default_text, const char* help,
                PairRoute pair = PairRoute::both);

OptionSpec switch_spec(const char* names, const char* help, PairRoute pair);

} // namespace netprof::cli
