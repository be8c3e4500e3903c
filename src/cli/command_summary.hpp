#pragma once

// What --help and the man page (netprof(1), written by netprof_docgen) both say besides the
// options: the one-line description, the usage lines, the two-terminal example and the exit
// statuses. Kept here once so the two cannot drift.

#include <netprof/registry.hpp>

#include <string>
#include <vector>

namespace netprof::cli {

// What netprof is, in one line: "latency and throughput of ...".
std::string tagline();

// The quick start: a local pair of 3 s (after "netprof").
inline constexpr const char* local_pair_example = "--local-pair -t 3";

// How the transport options are given, for the heading above them.
inline constexpr const char* transports_rule =
    "give the options of exactly one; --local-pair defaults to udp";

// A command line and what it does ("-i 0 TRANSPORT-OPTIONS [OPTIONS]", "the publisher").
struct CommandLine {
  std::string arguments; // after "netprof"
  std::string meaning;
};

// The three ways to run netprof: a publisher, a subscriber, a local pair.
const std::vector<CommandLine>& usages();

// A publisher and a subscriber over UDP loopback, as two terminals run them, and what the
// reader must know to adapt them.
const std::vector<CommandLine>& two_terminals();
inline constexpr const char* two_terminals_rule =
    "the first -u is this process's own address, the rest its peers";

struct ExitStatus {
  int status;
  std::string meaning;
};

const std::vector<ExitStatus>& exit_statuses();

// "netprof ARGUMENTS<pad>   MARKERMEANING" per line, the meanings aligned ("# " before each
// makes them shell comments).
std::vector<std::string> aligned(const std::vector<CommandLine>& lines, const std::string& marker);

// A transport's options as --help and the man page show them: under its registry name and
// summary, in registration order.
struct TransportOptions {
  std::string name;
  std::string summary;
  OptionGroup options;
  bool allows_threads = false; // TransportFlags::threads
};

std::vector<TransportOptions> transport_options(const TransportRegistry& registry);

// The core's option groups as --help and the man page show them: --threads names the
// transports of this build that can run as threads (TransportFlags::threads).
std::vector<OptionGroup> documented_core_options(const TransportRegistry& registry);

} // namespace netprof::cli
