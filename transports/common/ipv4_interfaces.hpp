#pragma once

// The host's IPv4 interfaces as getifaddrs() reports them, for checking -b, --mc-interface,
// --bc-interface and --dds-interface before anything is opened, and for naming the
// alternatives when a value is wrong. Shared by the UDP and DDS transports.

#include <netinet/in.h>

#include <string>
#include <string_view>
#include <vector>

namespace netprof::transport_common {

struct Ipv4Interface {
  std::string name; // "lo", "eth0"
  in_addr address{};
  in_addr netmask{};
  unsigned index = 0; // if_nametoindex
  bool up = false;
  std::vector<in_addr> broadcasts; // see broadcast_addresses()
};

// Every IPv4 address of every interface. Throws TransportError when getifaddrs() fails.
std::vector<Ipv4Interface> ipv4_interfaces();

// The interface `value` names, by IPv4 address or by name (its first address), among those the
// host has. Throws UsageError naming `flag` and the host's interfaces when none matches: an
// address that is not this host's is a mistake on the command line, not a failure to open.
Ipv4Interface find_ipv4_interface(const std::string& value, std::string_view flag);

// The broadcast addresses the kernel routes for this address: the one configured on the
// interface (brd) and the network's all-ones address (address | ~netmask) for prefixes shorter
// than /31, the way it fills its local routing table. The latter is how 127.255.255.255 on lo
// comes about: lo has no brd of its own.
std::vector<in_addr> broadcast_addresses(const in_addr& address, const in_addr& netmask,
                                         const in_addr* configured);

// "a.b.c.d"
std::string to_string(const in_addr& address);

} // namespace netprof::transport_common
