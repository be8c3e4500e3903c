#pragma once

#include <netinet/in.h>

#include <string_view>

namespace netprof::udp {

// Parses -b addr:port: a port other than 0, and an address that is 255.255.255.255 or the
// broadcast address of one of the host's interfaces (see broadcast_addresses()). Throws
// UsageError naming the value and listing the broadcast addresses that exist.
sockaddr_in parse_broadcast_address(std::string_view value);

} // namespace netprof::udp
