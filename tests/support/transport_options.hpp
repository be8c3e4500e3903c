#pragma once

// Gives a transport a command line as netprof's parser does: the arguments are parsed against
// the transport's own option group (and `also`, the groups of options it reads from elsewhere,
// such as udp::tuning_options() for multicast), and the values handed to the transport.

#include <netprof/options.hpp>
#include <netprof/registry.hpp>

#include <string>
#include <vector>

namespace netprof::testing {

inline void give_arguments(Transport& transport, const std::vector<std::string>& arguments,
                           std::vector<const OptionGroup*> also = {})
{
  also.insert(also.begin(), &transport.options());
  transport.set_option_values(parse_options(arguments, also));
}

} // namespace netprof::testing
