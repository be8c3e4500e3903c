#include "ipv4_address.hpp"

#include "common/host_name.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <memory>

namespace netprof::transport_common {

HostPort split_host_port(std::string_view value, std::string_view flag)
{
  if (!value.empty() && value.front() == '[') {
    throw_bad_address(flag, value, "IPv6 is not supported; give an IPv4 address or a host name");
  }
  const std::size_t colon = value.rfind(':');
  if (colon == std::string_view::npos) {
    throw_bad_address(flag, value, "expected host:port");
  }
  const std::string_view host = value.substr(0, colon);
  const std::string_view port = value.substr(colon + 1);
  if (host.find(':') != std::string_view::npos) {
    throw_bad_address(flag, value, "IPv6 is not supported; give an IPv4 address or a host name");
  }
  if (host.empty()) {
    throw_bad_address(flag, value, "expected host:port, the host is missing (0.0.0.0 means any)");
  }
  if (port.empty()) {
    throw_bad_address(flag, value, "expected host:port, the port is missing");
  }
  // from_chars rejects signs and spaces, and ptr tells us about trailing junk.
  std::uint32_t number = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (error == std::errc::invalid_argument || end != port.data() + port.size()) {
    throw_bad_address(flag, value, "the port '" + std::string(port) + "' is not a number 0..65535");
  }
  if (error == std::errc::result_out_of_range || number > 65535) {
    throw_bad_address(flag, value, "the port " + std::string(port) + " is not in 0..65535");
  }
  return HostPort{std::string(host), static_cast<std::uint16_t>(number)};
}

sockaddr_in parse_ipv4_endpoint(std::string_view value, std::string_view flag)
{
  const HostPort parts = split_host_port(value, flag);

  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(parts.port);

  if (looks_like_dotted_quad(parts.host)) {
    // glibc's inet_pton accepts exactly four decimal parts 0..255 without leading zeros.
    if (inet_pton(AF_INET, parts.host.c_str(), &address.sin_addr) != 1) {
      throw_bad_address(flag, value, "'" + parts.host + "' is not an IPv4 address a.b.c.d");
    }
    return address;
  }
  if (!is_host_name(parts.host)) {
    throw_bad_address(flag, value, "'" + parts.host + "' is not a valid host name");
  }

  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* raw = nullptr;
  const int status = getaddrinfo(parts.host.c_str(), nullptr, &hints, &raw);
  const AddrinfoList list(raw);
  if (status != 0 || list == nullptr) {
    throw_bad_address(flag, value,
                      "cannot resolve '" + parts.host + "' to an IPv4 address: " +
                          (status != 0 ? gai_strerror(status) : "no answer"));
  }
  const auto* found = reinterpret_cast<const sockaddr_in*>(list->ai_addr);
  address.sin_addr = found->sin_addr;
  return address;
}

std::string to_string(const sockaddr_in& address)
{
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &address.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(address.sin_port));
}

bool same_endpoint(const sockaddr_in& a, const sockaddr_in& b) noexcept
{
  return a.sin_addr.s_addr == b.sin_addr.s_addr && a.sin_port == b.sin_port;
}

} // namespace netprof::transport_common
