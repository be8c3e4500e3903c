#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace netprof {

// One stream a process takes part in under --publishers or --topics: its plan.
struct PlannedStream {
  std::uint32_t publisher = 0;
  std::uint32_t topic = 0;
  TransportPlan plan;
};

struct ParsedCommandLine {
  enum class Action { run, help, version, list_transports };
  Action action = Action::run;
  std::string text; // --help, --version or --list-transports output
  RunConfig config;
  TransportPlan plan; // the chosen transport's plan for this command line (a run only)
  // More than one stream (--publishers or --topics above 1): a publisher's topics, or a
  // subscriber's every publisher's every topic, in that order; `plan` is the first's. Empty
  // when the process has one stream: `plan` alone.
  std::vector<PlannedStream> streams;
  // Under --publishers P > 1, a publisher run by hand: the run's first stream (publisher 0's
  // topic 0) as the transport's name and addresses, which every publisher of the run computes
  // alike: the name of the default place they meet publisher 0 at (--lead).
  std::string first_stream;
  // With --local-pair: the options the user gave that its children get, as written, routed by
  // each option's PairRoute (the transport's addresses come from plan.local_pair).
  LocalPairArguments local_pair_options;
};

// Parses and validates argv. Throws UsageError with one line naming the problem (unknown
// flag, missing or malformed value, out-of-range number, conflicting transports...).
// `layout`: the local pair whose role these arguments are (RunConfig::pair_layout); a thread of
// --local-pair --threads parses its own with PairLayout::threads, which lets its transport
// accept what joins threads of one process only.
ParsedCommandLine parse_command_line(int argc, const char* const argv[],
                                     const TransportRegistry& registry,
                                     PairLayout layout = PairLayout::none);

// Checked once the endpoint is open and its largest message known: -s must fit the transport
// and the wire format, and a publisher's --num-vars records must fit in -s. Throws UsageError
// naming the options.
void check_payload(const RunConfig& config, const EndpointFacts& facts);

// The --help text. `topic` empty: the options every run uses, the transports by name and how
// to see their options; "all": that and every transport's options; a transport's name: its
// options alone. Throws UsageError for any other topic.
std::string help_text(const TransportRegistry& registry, std::string_view topic = {});

} // namespace netprof
