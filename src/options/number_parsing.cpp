#include "number_parsing.hpp"

#include <charconv>
#include <cmath>
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
