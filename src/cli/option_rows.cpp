#include "option_rows.hpp"

#include <utility>

namespace netprof::cli {

namespace {

// The shortest meaningful duration for a seconds option. Below a millisecond a probe timeout
// is shorter than a loopback round trip under load (1e-9 sent a flood of probes that all
// timed out), and a run or a wait is over before the other side is scheduled: zero is refused
// for the same reason, and a nanosecond is zero in all but name.
constexpr double min_seconds = 0.001;

} // namespace

WholeNumber whole(std::uint64_t min, std::uint64_t max)
{
  return {min, max, true};
}

WholeNumber bytes(std::uint64_t min, std::uint64_t max)
{
  return {.min = min, .max = max, .names_too_large = true, .byte_suffixes = true};
}

RealNumber positive_seconds()
{
  return {min_seconds, true, max_seconds, "seconds from 0.001 to 86400"};
}

OptionSpec spec(const char* names, const char* value_name, ValueRule rule,
                std::optional<std::string> default_text, const char* help, PairRoute pair)
{
  OptionSpec result = OptionSpec(names, value_name, std::move(rule), help).passed(pair);
  result.default_text = std::move(default_text);
  return result;
}

OptionSpec switch_spec(const char* names, const char* help, PairRoute pair)
{
  return spec(names, "", Switch{}, std::nullopt, help, pair);
}

} // namespace netprof::cli
