#pragma once

// The multicast transport's own options: -m group:port and the --mc-* settings sockperf's users
// know. Parsing is strict and checks the group and the interface before anything is opened.

#include <netprof/options.hpp>

#include <netinet/in.h>

#include <optional>
#include <string>
#include <vector>

namespace netprof::udp {

// MADARA's default multicast group.
inline constexpr const char* default_multicast_group = "239.255.0.1:4150";

struct MulticastInterface {
  std::string name;  // "lo"
  in_addr address{}; // the interface's IPv4 address
  unsigned index = 0;
};

struct MulticastSettings {
  sockaddr_in group{};
  int ttl = 1;
  bool loopback = true;
  std::optional<MulticastInterface> interface; // none: the route to the group decides
};

// -m and the --mc-* options, multicast's own group.
const OptionGroup& multicast_options();

// -m given, with a group (without one the transport uses MADARA's).
bool group_given(const OptionValues& values);

// Throws UsageError: not a multicast group, port 0, an unknown interface, a bad TTL...
MulticastSettings parse_multicast(const OptionValues& values);

// The local pair's -m: the group given, or MADARA's on a free port; without a group, also what
// keeps the traffic on this host unless the user chose otherwise (TTL 0, send and join on lo).
// The --mc-* options the user gave reach both processes as given. `streams`: the free port is
// the first of that many in a row (--publishers, --topics: stream k takes port + k).
std::vector<std::string> multicast_pair_arguments(const OptionValues& values, std::size_t streams);

} // namespace netprof::udp
