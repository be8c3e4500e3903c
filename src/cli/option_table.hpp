#pragma once

// The core's options, one row each: the flag, the RunConfig field it sets, its kind and range,
// help text and default, which roles read it and how the local pair passes it on. The table
// drives --help, parsing, validation and the local pair's child arguments.

#include <netprof/config.hpp>
#include <netprof/options.hpp>

#include <string>
#include <vector>

namespace netprof::cli {

// The roles whose run an option changes (the report echoes nearly every setting of both).
enum class Readers { none, publisher, subscriber, both };

// Sets the row's RunConfig field from what the user gave (or the default); throws UsageError.
using Assign = void (*)(RunConfig& config, const OptionValues& values, const OptionSpec& spec);

struct CoreOption {
  std::string heading; // the --help group it is shown in
  OptionSpec spec;
  Readers read_by = Readers::both;
  Assign assign = nullptr; // none for the actions: --help, --version, --list-transports
};

// In --help order, which is also the order values are checked in.
const std::vector<CoreOption>& core_option_table();

// The rows grouped under their headings, for the parser and --help.
std::vector<OptionGroup> core_option_groups();

// Sets every field of the table from `values`; the first bad value throws UsageError.
RunConfig core_config(const OptionValues& values);

} // namespace netprof::cli
