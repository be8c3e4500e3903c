#pragma once

#include "core/process/stop_flag.hpp"
#include "core/roles/live_status.hpp"
#include "core/roles/role_result.hpp"

#include <netprof/config.hpp>
#include <netprof/transport.hpp>

namespace netprof {

// The subscriber's whole test: announce, count on its own clock, echo probes, report at END.
// `started`: when the process began this role, before opening its endpoint (the join time's
// start).
RoleResult run_subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                          LiveCounters& live, Clock::time_point started);

} // namespace netprof
