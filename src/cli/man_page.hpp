#pragma once

// netprof(1) in roff (man(7) macros), written at build time by netprof_docgen from the option
// table and the transport registry that --help reads, so the two cannot drift.

#include <netprof/registry.hpp>

#include <string>

namespace netprof::cli {

// `text` safe for roff: backslashes and hyphens escaped (a hyphen in an option is a minus
// sign, so it can be searched for and copied), a leading '.' or '\'' kept from being read as a
// request.
std::string roff_escaped(const std::string& text);

// "\fB\-s\fR, \fB\-\-size\fR \fIBYTES\fR": how the option is written, for a .TP tag.
std::string roff_option_tag(const OptionSpec& spec);

// The whole page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, TRANSPORTS, EXIT STATUS, ENVIRONMENT,
// FILES, EXAMPLES, SEE ALSO.
std::string man_page(const TransportRegistry& registry);

} // namespace netprof::cli
