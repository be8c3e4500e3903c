#pragma once

#include "core/process/stop_flag.hpp"
#include "core/roles/live_status.hpp"
#include "core/roles/role_result.hpp"

#include <netprof/config.hpp>
#include <netprof/transport.hpp>

namespace netprof {

// The publisher's whole test: wait for subscribers, warm up, measure, end, collect counters.
RoleResult run_publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                         LiveCounters& live);

} // namespace netprof
