#pragma once

#include "core/process/stop_flag.hpp"

#include <netprof/cli.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace netprof {

// What a role takes from whoever runs it, beside its command line: a process of its own, or a
// thread of --local-pair --threads.
struct RoleHooks {
  // Ends the run early, with a report (a signal, or the local pair passing one on).
  const StopFlag& stop;
  // Called once the endpoint is open and the payload checked: the local pair starts the
  // subscriber only then.
  std::function<void()> ready;
};

// Runs one role, publisher or subscriber, from its parsed command line: pins it (--cpu: the
// calling thread, which is the whole process when it has one thread), opens its endpoint, runs
// it, prints its report on `out` and writes --json. Returns the exit status; throws what set-up
// throws (UsageError, TransportError).
int run_role_command(const ParsedCommandLine& parsed, const RoleHooks& hooks, std::ostream& out,
                     std::ostream& err);

// The same from the role's arguments (without argv[0]), parsed as the role of the local pair
// `layout`. Every error is printed on `err` and mapped to its exit status.
int run_role_arguments(const std::vector<std::string>& args, PairLayout layout,
                       const RoleHooks& hooks, std::ostream& out, std::ostream& err);

// Runs `body` and returns its exit status; what it throws is printed on `err` as one line and
// mapped to the documented status (UsageError: 2, anything else: 3).
int exit_status_of(std::ostream& err, const std::function<int()>& body);

} // namespace netprof
