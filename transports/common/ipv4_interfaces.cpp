#include "ipv4_interfaces.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <memory>
#include <system_error>

namespace netprof::transport_common {

namespace {

struct IfaddrsDeleter {
  void operator()(ifaddrs* list) const noexcept { freeifaddrs(list); }
};

void add_unique(std::vector<in_addr>& addresses, const in_addr& address)
{
  if (std::none_of(addresses.begin(), addresses.end(),
                   [&](const in_addr& known) { return known.s_addr == address.s_addr; })) {
    addresses.push_back(address);
  }
}

} // namespace

std::string to_string(const in_addr& address)
{
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &address, text, sizeof text);
  return text;
}

std::vector<in_addr> broadcast_addresses(const in_addr& address, const in_addr& netmask,
                                         const in_addr* configured)
{
  std::vector<in_addr> result;
  if (configured != nullptr && configured->s_addr != 0) {
    add_unique(result, *configured);
  }
  const int prefix = std::popcount(ntohl(netmask.s_addr));
  if (prefix < 31) {
    in_addr network_broadcast{};
    network_broadcast.s_addr = address.s_addr | ~netmask.s_addr;
    add_unique(result, network_broadcast);
  }
  return result;
}

std::vector<Ipv4Interface> ipv4_interfaces()
{
  ifaddrs* raw = nullptr;
  if (getifaddrs(&raw) != 0) {
    throw TransportError("cannot list the network interfaces: " +
                         std::generic_category().message(errno));
  }
  const std::unique_ptr<ifaddrs, IfaddrsDeleter> list(raw);
  std::vector<Ipv4Interface> interfaces;
  for (const ifaddrs* entry = list.get(); entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET ||
        entry->ifa_netmask == nullptr) {
      continue;
    }
    Ipv4Interface interface;
    interface.name = entry->ifa_name;
    interface.address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr;
    interface.netmask = reinterpret_cast<const sockaddr_in*>(entry->ifa_netmask)->sin_addr;
    interface.index = if_nametoindex(entry->ifa_name);
    interface.up = (entry->ifa_flags & IFF_UP) != 0;
    const bool has_brd = (entry->ifa_flags & IFF_BROADCAST) != 0 && entry->ifa_broadaddr != nullptr;
    const in_addr* configured =
        has_brd ? &reinterpret_cast<const sockaddr_in*>(entry->ifa_broadaddr)->sin_addr : nullptr;
    interface.broadcasts = broadcast_addresses(interface.address, interface.netmask, configured);
    interfaces.push_back(std::move(interface));
  }
  return interfaces;
}

Ipv4Interface find_ipv4_interface(const std::string& value, std::string_view flag)
{
  const std::vector<Ipv4Interface> interfaces = ipv4_interfaces();
  in_addr wanted{};
  const bool by_address = inet_pton(AF_INET, value.c_str(), &wanted) == 1;
  std::string known;
  for (const Ipv4Interface& candidate : interfaces) {
    if (by_address ? candidate.address.s_addr == wanted.s_addr : candidate.name == value) {
      return candidate;
    }
    known +=
        (known.empty() ? "" : ", ") + to_string(candidate.address) + " (" + candidate.name + ")";
  }
  throw UsageError("bad " + std::string(flag) + " value '" + value +
                   "': no interface has this address or name (these do: " +
                   (known.empty() ? "none" : known) + ")");
}

} // namespace netprof::transport_common
