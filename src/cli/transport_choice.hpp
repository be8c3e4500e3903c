#pragma once

// Which transport a command line chose, and the refusal of options it does not read.

#include <netprof/config.hpp>
#include <netprof/options.hpp>
#include <netprof/registry.hpp>

#include <memory>
#include <vector>

namespace netprof::cli {

// A registered transport, made to read its options while the command line is parsed.
struct TransportSlot {
  const TransportEntry* entry = nullptr;
  std::unique_ptr<Transport> transport;
};

std::vector<TransportSlot> make_transports(const TransportRegistry& registry);

// The transport the command line chose, checked for the role (or, for the local pair, for
// the arguments it derives); every option the user gave must be read by the core (`core`) or
// by it. Sets config.transport_name. Throws UsageError.
std::unique_ptr<Transport> select_transport(std::vector<TransportSlot>& slots,
                                            const OptionValues& values,
                                            const std::vector<OptionGroup>& core,
                                            RunConfig& config);

} // namespace netprof::cli
