#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <memory>
#include <string>

namespace netprof {

struct ParsedCommandLine {
  enum class Action { run, help, version, list_transports };
  Action action = Action::run;
  std::string text;                    // --help, --version or --list-transports output
  RunConfig config;
  std::unique_ptr<Transport> transport; // the selected transport, its options filled in
};

// Parses and validates argv. Throws UsageError with one line naming the problem (unknown
// flag, missing or malformed value, out-of-range number, conflicting transports...).
ParsedCommandLine parse_command_line(int argc, const char* const argv[],
                                     const TransportRegistry& registry);

// The full --help text: core options, one group per registered transport, exit codes.
std::string help_text(const TransportRegistry& registry);

} // namespace netprof
