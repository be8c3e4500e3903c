#pragma once

// Strict number parsing for the command line. Boost's lexical_cast wraps "-5" around for
// unsigned targets and istream-based parsing accepts leading blanks and partial input, so
// every number on the command line is parsed here from the user's text instead.

#include <cstdint>
#include <string_view>

namespace netprof::options {

enum class NumberStatus {
  ok,
  malformed,   // not a number at all, a sign where none is allowed, trailing junk, nan/inf
  out_of_range // a well-formed number the target type cannot hold
};

template <typename T> struct ParsedNumber {
  NumberStatus status = NumberStatus::malformed;
  T value{};
};

// Decimal digits only: no sign, no blanks, no base prefix, nothing after the last digit.
ParsedNumber<std::uint64_t> parse_unsigned(std::string_view text) noexcept;

// A byte count as iperf3 and sweep.py take it: digits, then optionally K, M or G (any case,
// "KiB", "MiB", "GiB" too), which multiply by 1024, 1024^2 and 1024^3. "1k" is 1024.
ParsedNumber<std::uint64_t> parse_byte_size(std::string_view text) noexcept;

// What parse_byte_size takes, in words for a message.
inline constexpr const char* byte_suffixes_help = "K, M, G = 1024, 1024^2, 1024^3 bytes";

// A finite decimal number ("10", "0.5", "1e3", "-2"); rejects nan, inf, hex, blanks and
// trailing junk. Range checks are the caller's: the limits depend on the option.
ParsedNumber<double> parse_finite_double(std::string_view text) noexcept;

} // namespace netprof::options
