#pragma once

#include <netinet/in.h>

#include <string>
#include <string_view>

namespace netprof::udp {

// Parses -b addr:port: a port other than 0, and an address that is 255.255.255.255 or the
// broadcast address of one of the host's interfaces (see broadcast_addresses()). Throws
// UsageError naming the value and listing the broadcast addresses that exist.
sockaddr_in parse_broadcast_address(std::string_view value);

// -b with --bc-interface: the broadcast address of the interface `interface` names (by IPv4
// address or name), and the port `value` gives, alone ("4150") or as addr:port whose address
// must be that interface's. What the multi-host launcher passes, since it knows each host's
// address but not its netmask. Throws UsageError naming the value.
sockaddr_in interface_broadcast_address(std::string_view value, const std::string& interface);

} // namespace netprof::udp
