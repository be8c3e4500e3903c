#pragma once

// An OptionGroup as Boost.Program_options sees it: the one place specs become Boost's
// declarations, for parsing (option_parser.cpp) and for --help (src/cli/help.cpp).

#include <netprof/options.hpp>

#include <boost/program_options.hpp>

namespace netprof::options {

// A standard terminal; Boost wraps the descriptions to fit.
inline constexpr unsigned help_line_length = 80;

// Every value is declared as text, so that Boost converts nothing: values are checked by
// OptionValues' getters, strictly and in one wording.
boost::program_options::options_description describe(const OptionGroup& group);

} // namespace netprof::options
