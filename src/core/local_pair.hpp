#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <netprof/clock.hpp>

#include <string>
#include <sys/types.h>
#include <vector>

namespace netprof {

// The command line of one process of --local-pair: its id, the user's options routed to it
// (`forwarded`, as the command line gave them: see route_to_local_pair), what the pair fixes
// itself (the publisher waits for its one subscriber; the subscriber is quiet, since the
// publisher's consolidated report covers both) and the transport's arguments for it.
std::vector<std::string> local_pair_role_arguments(Role role,
                                                   const std::vector<std::string>& forwarded,
                                                   const std::vector<std::string>& transport_args);

// Runs a subscriber and a publisher of this same binary as two processes; the publisher's
// report is printed. Returns the exit status (the publisher's, unless only the subscriber
// failed).
int run_local_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                   const Transport& transport);

// Stops and reaps a child process: SIGTERM, then SIGKILL if it is still there after `grace`.
// Returns its exit status in our terms (killed: ExitStatus::runtime).
int end_child(pid_t pid, Nanoseconds grace);

} // namespace netprof
