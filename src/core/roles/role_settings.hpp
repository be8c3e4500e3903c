#pragma once

// The parts of RunConfig each consumer reads, cut from it in one place (role_settings.cpp):
// a role or the verdict sees what it uses and nothing else, and a test builds it without
// the other 40-odd options. The report still gets the whole RunConfig: it shows the settings.

#include <netprof/clock.hpp>
#include <netprof/config.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>

namespace netprof {

// What the verdict judges a run against: what the user asked of it.
struct VerdictCriteria {
  std::optional<double> max_loss_percent; // --max-loss
  double wait_seconds = 0.0;              // --wait
  std::uint32_t subscribers = 0;          // --subscribers
  bool keyed = false; // --key-file: only the key's holders take part, so every member is judged
  Mode mode = Mode::stream;
  double send_hz = 0.0; // 0: as fast as possible
  std::optional<std::uint64_t> count;
  double test_seconds = 0.0;
  double probe_hz = 0.0;
  double probe_timeout_seconds = 0.0;
  double idle_timeout_seconds = 0.0;
};

// What a subscriber reads of the configuration.
struct SubscriberSettings {
  std::uint32_t id = 0;
  std::size_t payload_size = 0; // its own -s: the full echo's first size
  WaitStrategy wait_strategy = WaitStrategy::block;
  std::span<const std::byte> shared_secret; // --key-file's; the RunConfig's, which outlives it
  double drop_percent = 0.0;
  std::uint64_t drop_seed = 1;
  std::optional<Nanoseconds> interval; // --interval
  std::FILE* interval_lines = nullptr; // where the --interval lines go; none under --quiet
  PairLayout pair_layout = PairLayout::none;
  Nanoseconds wait{};         // --wait: for a publisher, and for data once acknowledged
  Nanoseconds idle_timeout{}; // --idle-timeout: a publisher silent mid-run
};

VerdictCriteria verdict_criteria(const RunConfig& config);
SubscriberSettings subscriber_settings(const RunConfig& config);
// Where a role writes its --interval lines: stdout, or stderr when the JSON report has stdout
// (--json -); nowhere under --quiet.
std::FILE* interval_lines(const RunConfig& config) noexcept;

} // namespace netprof
