#pragma once

#include "live_status.hpp"
#include "role_result.hpp"
#include "stop_flag.hpp"

#include <netprof/config.hpp>
#include <netprof/transport.hpp>

namespace netprof {

// The publisher's whole test: wait for subscribers, warm up, measure, end, collect counters.
RoleResult run_publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                         LiveCounters& live);

} // namespace netprof
