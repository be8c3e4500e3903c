#pragma once

// Parsing of host:port values (-u, -m, -b, --tcp), separate from sockets so it can be tested on
// its own. Every function throws UsageError with one line that names the flag and the value.

#include <netinet/in.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace netprof::transport_common {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

// Splits "host:port" strictly: a non-empty host, a decimal port 0..65535, nothing else.
HostPort split_host_port(std::string_view value, std::string_view flag);

// split_host_port, then the host as an IPv4 address: a dotted quad is taken literally (no
// inet_aton shorthands such as "127.1"), anything else is looked up with getaddrinfo(AF_INET)
// and the first answer wins.
sockaddr_in parse_ipv4_endpoint(std::string_view value, std::string_view flag);

// "a.b.c.d:port", the form the report and the local pair print.
std::string to_string(const sockaddr_in& address);

bool same_endpoint(const sockaddr_in& a, const sockaddr_in& b) noexcept;

} // namespace netprof::transport_common
