#pragma once

#include <netprof/config.hpp>

namespace netprof {

// Applies --nice and --rt-priority to the calling thread (which, in a process of one measuring
// thread, is the process). Throws TransportError naming what the process lacks when the
// kernel refuses: a run at another priority than asked would measure something else.
void apply_scheduling_priority(const RunConfig& config);

} // namespace netprof
