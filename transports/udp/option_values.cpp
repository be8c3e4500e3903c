#include "option_values.hpp"

#include <netprof/errors.hpp>

#include <charconv>
#include <cmath>

namespace netprof::udp {

namespace {

[[noreturn]] void invalid(std::string_view flag, std::string_view text, const std::string& expected)
{
  throw UsageError("invalid value '" + std::string(text) + "' for " + std::string(flag) +
                   ": expected " + expected);
}

} // namespace

std::uint64_t parse_whole_number(std::string_view flag, std::string_view text, std::uint64_t min,
                                 std::uint64_t max)
{
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value < min ||
      value > max) {
    invalid(flag, text, "a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

Nanoseconds parse_positive_seconds(std::string_view flag, std::string_view text,
                                   double max_seconds)
{
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value) || value <= 0 || value > max_seconds) {
    // Whole seconds print without a fraction: "at most 3600", as the core says it.
    invalid(flag, text,
            "seconds > 0, at most " + std::to_string(static_cast<long long>(max_seconds)));
  }
  return from_seconds(value);
}

bool parse_on_off(std::string_view flag, std::string_view text)
{
  if (text == "on") {
    return true;
  }
  if (text == "off") {
    return false;
  }
  invalid(flag, text, "on or off");
}

} // namespace netprof::udp
