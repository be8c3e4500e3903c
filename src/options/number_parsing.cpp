#include "number_parsing.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace netprof::options {

namespace {

template <typename T>
ParsedNumber<T> finish(const char* end, std::from_chars_result result, T value) noexcept
{
  if (result.ec == std::errc::result_out_of_range && result.ptr == end) {
    return {NumberStatus::out_of_range, {}};
  }
  if (result.ec != std::errc{} || result.ptr != end) {
    return {NumberStatus::malformed, {}};
  }
  return {NumberStatus::ok, value};
}

} // namespace

ParsedNumber<std::uint64_t> parse_unsigned(std::string_view text) noexcept
{
  const char* const first = text.data();
  const char* const last = first + text.size();
  // from_chars already refuses '+', '-' and blanks for unsigned types; an empty string
  // fails the same way.
  std::uint64_t value = 0;
  const auto result = std::from_chars(first, last, value);
  return finish(last, result, value);
}

ParsedNumber<std::uint64_t> parse_byte_size(std::string_view text) noexcept
{
  std::uint64_t multiplier = 1;
  std::string_view digits = text;
  const auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); };
  if (digits.size() > 2 && lower(digits[digits.size() - 2]) == 'i' && lower(digits.back()) == 'b') {
    digits.remove_suffix(2); // "KiB": the unit must still follow
    if (digits.empty() || (digits.back() >= '0' && digits.back() <= '9'))
      return {NumberStatus::malformed, {}};
  }
  if (!digits.empty()) {
    switch (lower(digits.back())) {
    case 'k':
      multiplier = 1ULL << 10;
      break;
    case 'm':
      multiplier = 1ULL << 20;
      break;
    case 'g':
      multiplier = 1ULL << 30;
      break;
    default:
      break;
    }
  }
  if (multiplier > 1)
    digits.remove_suffix(1);
  if (multiplier == 1 && digits.size() != text.size())
    return {NumberStatus::malformed, {}};
  ParsedNumber<std::uint64_t> parsed = parse_unsigned(digits);
  if (parsed.status != NumberStatus::ok)
    return parsed;
  if (parsed.value > std::numeric_limits<std::uint64_t>::max() / multiplier)
    return {NumberStatus::out_of_range, {}};
  parsed.value *= multiplier;
  return parsed;
}

ParsedNumber<double> parse_finite_double(std::string_view text) noexcept
{
  const char* const first = text.data();
  const char* const last = first + text.size();
  // from_chars (unlike strtod) ignores the locale and never skips leading blanks, and
  // chars_format::general refuses hex floats.
  double value = 0.0;
  const auto result = std::from_chars(first, last, value, std::chars_format::general);
  auto parsed = finish(last, result, value);
  if (parsed.status == NumberStatus::ok && !std::isfinite(parsed.value)) {
    return {NumberStatus::malformed, {}};
  }
  return parsed;
}

} // namespace netprof::options
