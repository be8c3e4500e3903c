#include "broadcast_address.hpp"

#include "interfaces.hpp"
#include "socket_address.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
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

namespace {

// "4150": a port alone, 1 to 65535; nullopt when `value` is not all digits.
std::optional<std::uint16_t> bare_port(std::string_view value)
{
  if (value.empty() ||
      !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  unsigned long port = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
  if (error != std::errc{} || end != value.data() + value.size() || port == 0 || port > 65535) {
    throw UsageError("bad -b value '" + std::string(value) + "': a port from 1 to 65535");
  }
  return static_cast<std::uint16_t>(port);
}

} // namespace

sockaddr_in interface_broadcast_address(std::string_view value, const std::string& interface)
{
  const Ipv4Interface found = find_ipv4_interface(interface, "--bc-interface");
  const std::string where =
      "--bc-interface " + interface + ": " + found.name + " (" + to_string(found.address) + ")";
  if (!found.up) {
    throw UsageError(where + " is down");
  }
  if (found.broadcasts.empty()) {
    throw UsageError(where + " has no broadcast address (a /31 or /32)");
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr = found.broadcasts.front();
  if (const std::optional<std::uint16_t> port = bare_port(value)) {
    address.sin_port = htons(*port);
    return address;
  }
  const sockaddr_in given = parse_broadcast_address(value);
  const bool its_own =
      std::any_of(found.broadcasts.begin(), found.broadcasts.end(), [&](const in_addr& broadcast) {
        return broadcast.s_addr == given.sin_addr.s_addr;
      });
  if (!its_own) {
    throw UsageError("bad -b value '" + std::string(value) + "': " + to_string(given.sin_addr) +
                     " is not the broadcast address of " + where + ", which is " +
                     to_string(found.broadcasts.front()));
  }
  return given;
}

} // namespace netprof::udp
