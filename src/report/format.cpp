#include <netprof/report.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

// Every number a human reads goes through here, so "1.2e+09" can never reach a report: we only
// ever print with "%.*f" and group the integer part ourselves.

namespace netprof {

namespace {

// Inserts thousands separators into the integer part of an already formatted number.
std::string group_thousands(const std::string& digits)
{
  std::size_t start = (!digits.empty() && digits[0] == '-') ? 1 : 0;
  std::size_t end = digits.find('.');
  if (end == std::string::npos) {
    end = digits.size();
  }
  std::string out = digits.substr(0, start);
  std::size_t length = end - start;
  for (std::size_t i = 0; i < length; ++i) {
    out += digits[start + i];
    std::size_t remaining = length - i - 1;
    if (remaining > 0 && remaining % 3 == 0) {
      out += ',';
    }
  }
  out += digits.substr(end);
  return out;
}

std::string fixed(double value, int decimals)
{
  // %.*f of a finite double never uses an exponent; the buffer is sized for the largest double.
  std::array<char, 400> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return group_thousands(buffer.data());
}

// Decimals that give `digits` significant digits, capped so tiny values stay readable
// ("0.000") instead of growing a long tail of zeros.
int decimals_for(double magnitude, int digits, int max_decimals)
{
  if (magnitude == 0.0) {
    return 0;
  }
  int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  int decimals = digits - 1 - exponent;
  // Rounding can carry into the next decade (9.996 -> 10.00): one digit fewer then.
  double scale = std::pow(10.0, decimals);
  if (std::round(magnitude * scale) / scale >= std::pow(10.0, exponent + 1)) {
    --decimals;
  }
  if (decimals < 0) {
    return 0;
  }
  return decimals > max_decimals ? max_decimals : decimals;
}

// Divides by 1000 until the value, rounded to three significant digits, is below 1000 (so
// 999.7 becomes "1.00 k", not "1000"); returns how many times it divided.
std::size_t scale_by_thousands(double& magnitude, std::size_t max_steps)
{
  std::size_t steps = 0;
  while (steps < max_steps) {
    double scale = std::pow(10.0, decimals_for(magnitude, 3, 3));
    if (std::round(magnitude * scale) / scale < 1000.0) {
      break;
    }
    magnitude /= 1000.0;
    ++steps;
  }
  return steps;
}

std::string format_significant(double value)
{
  if (!std::isfinite(value)) {
    return "n/a";
  }
  if (value == 0.0) {
    return "0"; // also keeps -0.0 from printing as "-0"
  }
  return fixed(value, decimals_for(std::fabs(value), 3, 3));
}

std::string format_prefixed(double value, const char* unit, bool space_before_unit)
{
  if (!std::isfinite(value)) {
    return "n/a";
  }
  static constexpr std::array<const char*, 7> prefixes{"", "k", "M", "G", "T", "P", "E"};
  double magnitude = std::fabs(value);
  std::string prefix = prefixes[scale_by_thousands(magnitude, prefixes.size() - 1)];
  // Appended rather than `"-" + string`, which g++ 12 misreports under -Wrestrict.
  std::string number = value < 0.0 ? "-" : "";
  number += format_significant(magnitude);
  if (space_before_unit) {
    return number + " " + (prefix.empty() ? std::string{} : prefix + " ") + unit;
  }
  return number + " " + prefix + unit;
}

} // namespace

std::string format_number(double value)
{
  if (!std::isfinite(value)) {
    return "n/a";
  }
  std::string text = fixed(value, 3);
  // Settings are echoed as the user typed them: "10", "0.5", not "10.000".
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') {
      text.pop_back();
    }
    if (text.back() == '.') {
      text.pop_back();
    }
  }
  if (text == "-0") {
    text = "0";
  }
  return text;
}

std::string format_percent(double percent)
{
  if (!std::isfinite(percent)) {
    return "n/a";
  }
  if (percent > 0.0 && percent < 0.001) {
    // A nonzero loss must never read as "0.000%".
    return "< 0.001%";
  }
  return format_significant(percent) + "%";
}

std::string format_count(std::uint64_t value)
{
  return group_thousands(std::to_string(value));
}

std::string format_duration_ns(double ns)
{
  if (!std::isfinite(ns)) {
    return "n/a";
  }
  double magnitude = std::fabs(ns);
  static constexpr std::array<const char*, 4> units{"ns", "us", "ms", "s"};
  std::size_t index = scale_by_thousands(magnitude, units.size() - 1);
  // Seconds are the last unit: long runs read "1,234 s", still without an exponent.
  std::string text = ns < 0.0 ? "-" : ""; // appended: see format_prefixed
  text += format_significant(magnitude);
  text += ' ';
  text += units[index];
  return text;
}

std::string format_bytes(double bytes)
{
  return format_prefixed(bytes, "B", false);
}

std::string format_byte_total(std::uint64_t bytes)
{
  std::string exact = format_count(bytes) + " B";
  if (bytes < 1000) {
    return exact;
  }
  return format_bytes(static_cast<double>(bytes)) + " (" + exact + ")";
}

std::string format_run_id(std::uint64_t run_id)
{
  std::array<char, 17> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%016llx", static_cast<unsigned long long>(run_id));
  return buffer.data();
}

std::string format_rate(double per_second, const char* unit)
{
  if (!std::isfinite(per_second)) {
    return "n/a";
  }
  std::string name = unit;
  // Bytes take the prefix directly ("MB/s"); counted things keep a space ("M msg/s").
  bool glued = name == "B";
  return format_prefixed(per_second, unit, !glued) + "/s";
}

} // namespace netprof
