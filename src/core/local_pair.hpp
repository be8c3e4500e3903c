#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <netprof/clock.hpp>

#include <string>
#include <sys/types.h>
#include <vector>

namespace netprof {

// The command lines of the two processes of --local-pair, rebuilt from the parsed settings
// (never by editing argv, which would carry the user's spelling and --local-pair itself).
std::vector<std::string> local_pair_role_arguments(const RunConfig& config, Role role,
                                                   const std::vector<std::string>& transport_args);

// Runs a subscriber and a publisher of this same binary as two processes; the publisher's
// report is printed. Returns the exit status (the publisher's, unless only the subscriber
// failed).
int run_local_pair(const RunConfig& config, const Transport& transport);

// Stops and reaps a child process: SIGTERM, then SIGKILL if it is still there after `grace`.
// Returns its exit status in our terms (killed: ExitStatus::runtime).
int end_child(pid_t pid, Nanoseconds grace);

} // namespace netprof
