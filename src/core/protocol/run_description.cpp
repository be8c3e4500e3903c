#include "core/protocol/run_description.hpp"

#include <netprof/report.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

namespace netprof {

namespace {

std::uint64_t to_ns(double seconds) noexcept
{
  return static_cast<std::uint64_t>(std::llround(seconds * 1e9));
}

// One setting the publisher decides: how to show it, and whether this subscriber's value
// differs from the run's.
struct Setting {
  const char* option; // long name, as given
  const char* shown;  // as the disagreement names it
  std::function<std::string(const RunConfig&)> value;
};

std::string seconds_or_none(const std::optional<std::uint64_t>& count, double seconds)
{
  return count ? "none (counted)" : format_number(seconds) + " s";
}

const std::vector<Setting>& settings()
{
  static const std::vector<Setting> all = {
      {"size", "-s", [](const RunConfig& c) { return format_count(c.payload_size) + " B"; }},
      {"num-vars", "--num-vars", [](const RunConfig& c) { return std::to_string(c.num_vars); }},
      {"time", "-t", [](const RunConfig& c) { return seconds_or_none(c.count, c.test_seconds); }},
      {"count", "--count",
       [](const RunConfig& c) { return c.count ? format_count(*c.count) : "none (timed)"; }},
      {"send-hz", "--send-hz",
       [](const RunConfig& c) {
         return c.send_hz > 0 ? format_number(c.send_hz) + " Hz" : "as fast as possible";
       }},
      {"mode", "--mode", [](const RunConfig& c) { return std::string(to_string(c.mode)); }},
      {"probe-hz", "--probe-hz",
       [](const RunConfig& c) { return format_number(c.probe_hz) + " Hz"; }},
      {"warmup-time", "--warmup-time",
       [](const RunConfig& c) { return seconds_or_none(c.warmup_count, c.warmup_seconds); }},
      {"warmup-count", "--warmup-count",
       [](const RunConfig& c) {
         return c.warmup_count ? format_count(*c.warmup_count) : "none (timed)";
       }},
  };
  return all;
}

} // namespace

wire::RunDescription describe_run(const RunConfig& config) noexcept
{
  wire::RunDescription d;
  d.payload_size = config.payload_size;
  d.num_vars = config.num_vars;
  d.ping_pong = config.mode == Mode::ping_pong ? 1 : 0;
  d.round_robin = config.fanout == Fanout::round_robin;
  d.test_ns = config.count ? 0 : to_ns(config.test_seconds);
  d.count = config.count.value_or(0);
  d.send_hz = config.send_hz;
  d.warmup_ns = config.warmup_count ? 0 : to_ns(config.warmup_seconds);
  d.warmup_count = config.warmup_count ? *config.warmup_count + 1 : 0;
  d.probe_hz = config.probe_hz;
  d.subscribers = config.subscribers;
  d.count_received = config.count_received.value_or(0);
  return d;
}

RunConfig as_described(const RunConfig& own, const wire::RunDescription& run,
                       std::vector<std::string>& disagreements)
{
  RunConfig shown = own;
  shown.payload_size = run.payload_size;
  shown.num_vars = static_cast<std::uint32_t>(std::min<std::uint64_t>(run.num_vars, UINT32_MAX));
  shown.mode = run.ping_pong ? Mode::ping_pong : Mode::stream;
  shown.fanout = run.round_robin ? Fanout::round_robin : Fanout::all;
  shown.count = run.count > 0 ? std::optional(run.count) : std::nullopt;
  shown.test_seconds = static_cast<double>(run.test_ns) * 1e-9;
  shown.send_hz = run.send_hz;
  shown.warmup_count = run.warmup_count > 0 ? std::optional(run.warmup_count - 1) : std::nullopt;
  shown.warmup_seconds = static_cast<double>(run.warmup_ns) * 1e-9;
  shown.probe_hz = run.probe_hz;
  shown.subscribers =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(run.subscribers, UINT32_MAX));
  shown.count_received = run.count_received > 0 ? std::optional(run.count_received) : std::nullopt;
  const auto& given = own.options_given;
  for (const Setting& setting : settings()) {
    if (std::find(given.begin(), given.end(), setting.option) == given.end())
      continue;
    const std::string mine = setting.value(own);
    const std::string runs = setting.value(shown);
    if (mine != runs)
      disagreements.push_back(std::string(setting.shown) + " was given here as " + mine +
                              ", but the publisher's run has " + runs +
                              ": the report shows the run's");
  }
  return shown;
}

} // namespace netprof
