#pragma once

#include <netprof/config.hpp>
#include <netprof/wire.hpp>

namespace netprof {

// What this role has cost so far: CPU time of all its process's threads (a transport's own I/O
// threads included, which is what the user pays for) and its peak resident set. A role of
// --local-pair --threads (`layout`) shares its process with the other role, so its CPU time is
// then its own thread's alone (a transport's helper threads left out), and the peak resident
// set the one process's. Zeros if the kernel refuses, which it does not for the calling thread.
wire::ProcessUsage measure_process_usage(PairLayout layout) noexcept;

} // namespace netprof
