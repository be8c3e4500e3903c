#pragma once

// Which transport a command line chose, and the refusal of options it does not read.

#include <netprof/config.hpp>
#include <netprof/options.hpp>
#include <netprof/registry.hpp>

#include <vector>

namespace netprof::cli {

// The plan of the transport the command line chose, for its role (or, for the local pair, for
// the arguments it derives and both roles): refusals of its options and of the QoS asked come
// from there. Every option the user gave must be read by the core (`core`) or by the chosen
// transport. Sets config.transport_name. Throws UsageError. `stream`: the publisher whose
// stream the addresses name under --publishers (OptionSpec::per_stream); 0 is as given.
TransportPlan plan_transport(const TransportRegistry& registry, const OptionValues& values,
                             const std::vector<OptionGroup>& core, RunConfig& config,
                             std::uint32_t stream = 0);

// What the core knows of the endpoints this command line opens, as far as the command line
// knows it (the roles set their largest control message when they open).
EndpointRequest endpoint_request(const RunConfig& config);

} // namespace netprof::cli
