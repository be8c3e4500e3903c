#pragma once

// The bash completion of netprof, written at build time by netprof_docgen from the option
// table and the transport registry, so every option a build has is completed and none that it
// lacks.

#include <netprof/registry.hpp>

#include <string>

namespace netprof::cli {

// A script defining _netprof and `complete -F _netprof netprof`: every option of the core and
// of each transport; after an option with a fixed set of values (--mode), those values; after
// a FILE, file names; after a USER, user names; after any other value, nothing (the user types
// a number or an address). "--mode=" is completed as "--mode ".
std::string bash_completion(const TransportRegistry& registry);

} // namespace netprof::cli
