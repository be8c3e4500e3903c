#pragma once

// Strict parsing of the UDP transports' numeric and on/off option values. Each throws
// UsageError with one line in the core's wording: "invalid value 'x' for --flag: expected ...".
// (Boost's own conversions accept "-1" for an unsigned option, hence text parsed here.)

#include <netprof/clock.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace netprof::udp {

// A decimal whole number from min to max, nothing else (no sign, no spaces, no hex).
std::uint64_t parse_whole_number(std::string_view flag, std::string_view text, std::uint64_t min,
                                 std::uint64_t max);

// Seconds > 0 and at most max_seconds; fractions allowed.
Nanoseconds parse_positive_seconds(std::string_view flag, std::string_view text,
                                   double max_seconds);

// "on" or "off".
bool parse_on_off(std::string_view flag, std::string_view text);

} // namespace netprof::udp
