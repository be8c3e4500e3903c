#include "broadcast_address.hpp"

#include "interfaces.hpp"
#include "socket_address.hpp"

#include <netprof/errors.hpp>

#include <string>

namespace netprof::udp {

sockaddr_in parse_broadcast_address(std::string_view value)
{
  const sockaddr_in address = parse_ipv4_endpoint(value, "-b");
  const std::string prefix = "bad -b value '" + std::string(value) + "': ";
  if (address.sin_port == 0) {
    throw UsageError(prefix + "a port other than 0 is needed (every process binds the same one)");
  }
  if (address.sin_addr.s_addr == htonl(INADDR_BROADCAST)) {
    return address;
  }
  std::string known;
  for (const Ipv4Interface& interface : ipv4_interfaces()) {
    for (const in_addr& broadcast : interface.broadcasts) {
      if (!interface.up) {
        continue;
      }
      if (broadcast.s_addr == address.sin_addr.s_addr) {
        return address;
      }
      known += to_string(broadcast) + " (" + interface.name + "), ";
    }
  }
  throw UsageError(prefix + "no interface has the broadcast address " +
                   to_string(address.sin_addr) + " (these do: " + known + "and 255.255.255.255)");
}

} // namespace netprof::udp
