#pragma once

// The run a publisher describes in its acknowledgement (wire::RunDescription), and what a
// subscriber makes of it: the settings its report shows are the run's, not its own defaults,
// and a setting it was given with another value is named.

#include <netprof/config.hpp>
#include <netprof/wire.hpp>

#include <string>
#include <vector>

namespace netprof {

wire::RunDescription describe_run(const RunConfig& config) noexcept;

// `own` with the run's settings in place of those the publisher decides (-s, --num-vars, -t or
// --count, --send-hz, --mode, --probe-hz, the warm-up). Each of those `own` was given on its
// command line (RunConfig::options_given) with another value adds a line to `disagreements`.
RunConfig as_described(const RunConfig& own, const wire::RunDescription& run,
                       std::vector<std::string>& disagreements);

} // namespace netprof
