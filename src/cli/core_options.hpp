#pragma once

// The core's option groups, shared by the parser and --help so the two cannot drift.

#include <boost/program_options.hpp>

#include <vector>

namespace netprof::cli {

// In --help order. Every value is kept as text: numbers are parsed strictly afterwards
// (see number_parsing.hpp), so no value here has a typed target or a notifier.
std::vector<boost::program_options::options_description> core_option_groups();

// A standard terminal; Boost wraps the descriptions to fit.
inline constexpr unsigned help_line_length = 80;

} // namespace netprof::cli
