#pragma once

#include <netprof/wire.hpp>

namespace netprof {

// What this process has cost so far: CPU time of all its threads (a transport's own I/O threads
// included, which is what the user pays for) and its peak resident set. Zeros if the kernel
// refuses, which it does not for the calling process.
wire::ProcessUsage measure_process_usage() noexcept;

} // namespace netprof
