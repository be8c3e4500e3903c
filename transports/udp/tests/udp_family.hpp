#pragma once

// What the UDP option tests share: command lines parsed against the UDP groups, the one line a
// refusal says, and the three UDP transports as one registry makes them.

#include "udp/udp_transport.hpp"

#include "support/transport_options.hpp"

#include <netprof/errors.hpp>
#include <netprof/options.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace netprof::udp_testing {

using Arguments = std::vector<std::string>;

inline OptionValues parsed(const Arguments& arguments,
                           const std::vector<const OptionGroup*>& groups)
{
  return netprof::parse_options(arguments, groups);
}

template <typename Action> std::string usage_error(Action&& action)
{
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

// The three UDP transports as one registry makes them; the command line gives each what the
// user gave, parsed against every group.
struct Family {
  std::vector<TransportDescriptor> all = {udp_transport(), multicast_transport(),
                                          broadcast_transport()};
  std::unique_ptr<testing::PlannedTransport> unicast, multicast, broadcast;

  explicit Family(const Arguments& given = {}) { give(given); }

  std::vector<const OptionGroup*> groups() const
  {
    return {&all[0].options, &all[1].options, &all[2].options};
  }

  void give(const Arguments& arguments)
  {
    const OptionValues values = parsed(arguments, groups());
    unicast = std::make_unique<testing::PlannedTransport>(all[0], values, all);
    multicast = std::make_unique<testing::PlannedTransport>(all[1], values, all);
    broadcast = std::make_unique<testing::PlannedTransport>(all[2], values, all);
  }

  // What the local pair passes on as the user gave it, beside the transport's own arguments.
  LocalPairArguments forwarded(const Arguments& arguments) const
  {
    return route_to_local_pair(parsed(arguments, groups()), groups());
  }
};

// Both processes of a local pair get `expected`.
inline ::testing::AssertionResult both_get(const LocalPairArguments& pair,
                                           const Arguments& expected)
{
  if (pair.publisher == expected && pair.subscriber == expected)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "publisher " << ::testing::PrintToString(pair.publisher) << ", subscriber "
         << ::testing::PrintToString(pair.subscriber) << ", expected both "
         << ::testing::PrintToString(expected);
}

} // namespace netprof::udp_testing
