#include "zmq_address.hpp"

#include "common/free_ports.hpp"
#include "common/host_name.hpp"
#include "common/socket_file.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <system_error>

namespace netprof::zeromq {

namespace {

constexpr std::string_view tcp_prefix = "tcp://";
constexpr std::string_view ipc_prefix = "ipc://";
constexpr std::string_view inproc_prefix = "inproc://";

// The endpoint as zmq_bind and zmq_connect take it, from its parts.
std::string endpoint_text(const Address& address)
{
  switch (address.scheme) {
  case Scheme::tcp:
    return std::string(tcp_prefix) + (address.ipv6 ? "[" + address.host + "]" : address.host) +
           ":" + address.port;
  case Scheme::ipc:
    return std::string(ipc_prefix) + address.path;
  case Scheme::inproc:
    return std::string(inproc_prefix) + address.path;
  }
  return {};
}

[[noreturn]] void throw_bad_value(std::string_view value, std::string_view reason)
{
  transport_common::throw_bad_address("--zmq", value, reason);
}

using transport_common::is_host_name;
using transport_common::looks_like_dotted_quad;

using transport_common::AddrinfoList;

// Resolves like libzmq does without ZMQ_IPV6 (IPv4 only), so that a name that cannot work
// fails now instead of leaving ZeroMQ retrying in the background until --wait runs out.
bool resolves(const std::string& host, int family, in_addr* first_ipv4)
{
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* raw = nullptr;
  const int status = getaddrinfo(host.c_str(), nullptr, &hints, &raw);
  const AddrinfoList list(raw);
  if (status != 0 || list == nullptr) {
    return false;
  }
  if (first_ipv4 != nullptr && list->ai_family == AF_INET) {
    *first_ipv4 = reinterpret_cast<const sockaddr_in*>(list->ai_addr)->sin_addr;
  }
  return true;
}

struct HostPort {
  std::string_view host;
  std::string_view port;
  bool ipv6 = false;
};

HostPort split_host_port(std::string_view value, std::string_view rest)
{
  HostPort split;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      throw_bad_value(value, "expected tcp://[ipv6]:port");
    }
    split.host = rest.substr(1, close - 1);
    split.port = rest.substr(close + 2);
    in6_addr ignored{};
    if (inet_pton(AF_INET6, std::string(split.host).c_str(), &ignored) != 1) {
      throw_bad_value(value, "'" + std::string(split.host) + "' is not an IPv6 address");
    }
    split.ipv6 = true;
  } else {
    const std::size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) {
      throw_bad_value(value, "expected tcp://host:port, the port is missing");
    }
    split.host = rest.substr(0, colon);
    split.port = rest.substr(colon + 1);
    if (split.host.find(':') != std::string_view::npos) {
      throw_bad_value(value, "an IPv6 address needs brackets: tcp://[address]:port");
    }
  }
  if (split.host.empty()) {
    throw_bad_value(value, "expected tcp://host:port, the host is missing (* binds every "
                           "interface)");
  }
  if (split.port.empty()) {
    throw_bad_value(value, "expected tcp://host:port, the port is missing");
  }
  return split;
}

// Whether `port` leaves the choice to the system (* or 0).
bool wildcard_port(std::string_view value, std::string_view port)
{
  if (port == "*") {
    return true;
  }
  std::uint32_t number = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (error != std::errc{} || end != port.data() + port.size() || number > 65535) {
    throw_bad_value(value, "the port '" + std::string(port) + "' is not a number 0..65535 or *");
  }
  return number == 0;
}

void check_ipv4_host(std::string_view value, std::string_view host, Use use)
{
  const std::string name(host);
  if (looks_like_dotted_quad(host)) {
    in_addr ignored{};
    if (inet_pton(AF_INET, name.c_str(), &ignored) != 1) {
      throw_bad_value(value, "'" + name + "' is not an IPv4 address a.b.c.d");
    }
  } else if (!is_host_name(host)) {
    throw_bad_value(value, "'" + name + "' is not a valid host or interface name");
  } else if (use == Use::connect && !resolves(name, AF_INET, nullptr)) {
    throw_bad_value(value, "cannot resolve '" + name + "' to an IPv4 address");
  }
}

Address parse_tcp(std::string_view value, std::string_view rest, Use use)
{
  const auto [host, port, ipv6] = split_host_port(value, rest);
  Address address;
  address.scheme = Scheme::tcp;
  address.ipv6 = ipv6;
  address.wildcard = wildcard_port(value, port);
  if (address.wildcard && use == Use::connect) {
    throw_bad_value(value, "a peer to connect to needs a real port, not " + std::string(port));
  }

  if (host == "*") {
    if (use == Use::connect) {
      throw_bad_value(value, "* only binds; a peer to connect to needs its address");
    }
  } else if (!address.ipv6) {
    check_ipv4_host(value, host, use);
  }

  address.host = std::string(host);
  address.port = std::string(port);
  address.text = endpoint_text(address);
  return address;
}

Address parse_ipc(std::string_view value, std::string_view path, Use use)
{
  Address address;
  address.scheme = Scheme::ipc;
  if (path.empty()) {
    throw_bad_value(value, "expected ipc://path, the path is missing");
  }
  if (path == "*") {
    if (use == Use::connect) {
      throw_bad_value(value, "ipc://* only binds; a peer to connect to needs its path");
    }
    address.wildcard = true;
  } else if (path == "@") {
    throw_bad_value(value, "an abstract ipc:// name needs characters after the @");
  }
  if (path.size() > max_ipc_path) {
    throw_bad_value(value, "the path is " + std::to_string(path.size()) + " bytes, at most " +
                               std::to_string(max_ipc_path) + " fit in a Unix socket address");
  }
  address.path = std::string(path);
  address.text = endpoint_text(address);
  return address;
}

Address parse_inproc(std::string_view value, std::string_view name, Inproc inproc)
{
  if (inproc == Inproc::refused) {
    throw_bad_value(value, "inproc:// only connects sockets inside one process, and netprof's "
                           "publisher and subscribers are separate processes: use ipc:// or "
                           "tcp://, or run both as threads of one process with --local-pair "
                           "--threads");
  }
  if (name.empty() || name == "*") {
    throw_bad_value(value, "expected inproc://name, the name is missing (netprof does not pick "
                           "one)");
  }
  Address address;
  address.scheme = Scheme::inproc;
  address.path = std::string(name);
  address.text = endpoint_text(address);
  return address;
}

} // namespace

Address parse_address(std::string_view value, Use use, Inproc inproc)
{
  const std::size_t separator = value.find("://");
  if (separator == std::string_view::npos) {
    throw_bad_value(value, "expected tcp://host:port or ipc://path");
  }
  const std::string_view scheme = value.substr(0, separator);
  const std::string_view rest = value.substr(separator + 3);
  if (scheme == "tcp") {
    return parse_tcp(value, rest, use);
  }
  if (scheme == "ipc") {
    return parse_ipc(value, rest, use);
  }
  if (scheme == "inproc") {
    return parse_inproc(value, rest, inproc);
  }
  static constexpr std::string_view other_zeromq_schemes[] = {"pgm",  "epgm", "norm", "tipc",
                                                              "vmci", "ws",   "wss",  "udp"};
  if (std::find(std::begin(other_zeromq_schemes), std::end(other_zeromq_schemes), scheme) !=
      std::end(other_zeromq_schemes)) {
    throw_bad_value(value, "the " + std::string(scheme) +
                               ":// scheme is not supported here: use tcp:// or ipc://");
  }
  throw_bad_value(value, "unknown scheme '" + std::string(scheme) + "': use tcp:// or ipc://");
}

Address deal_address(const Address& address)
{
  if (address.wildcard)
    return address; // ZeroMQ picks another port or path for it
  Address deal = address;
  if (address.scheme == Scheme::tcp) {
    const unsigned long port = std::stoul(address.port);
    if (port >= 65535)
      throw_bad_value(address.text, "--zmq-pattern pushpull deals the data at the next port, "
                                    "and there is none after 65535");
    deal.port = std::to_string(port + 1);
  } else {
    deal.path += deal_suffix;
  }
  if (deal.scheme == Scheme::ipc && deal.path.size() > max_ipc_path)
    throw_bad_value(address.text, "--zmq-pattern pushpull deals the data at the path with \"" +
                                      std::string(deal_suffix) +
                                      "\" after it, which would not fit in a Unix socket "
                                      "address (at most " +
                                      std::to_string(max_ipc_path) + " bytes)");
  deal.text = endpoint_text(deal);
  return deal;
}

std::vector<std::uint16_t> pick_free_tcp_ports(const std::string& host, std::size_t count,
                                               std::size_t block)
{
  sockaddr_in address{};
  address.sin_family = AF_INET;
  if (host == "*") {
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  } else if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1 &&
             !resolves(host, AF_INET, &address.sin_addr)) {
    throw UsageError("cannot pick a free port on '" + host +
                     "': give an IPv4 address or a port (tcp://host:port)");
  }

  return transport_common::pick_free_ports(SOCK_STREAM, address.sin_addr, count, block);
}

std::string temporary_ipc_path(std::string_view role)
{
  return transport_common::temporary_socket_path("netprof-zmq", role, ".ipc");
}

IpcBindCheck prepare_ipc_bind(const Address& address)
{
  if (!address.is_ipc_file()) {
    return {}; // abstract names have no file; ipc://* is a fresh file ZeroMQ makes
  }
  const std::string what = "ZeroMQ " + address.text;
  return {transport_common::prepare_socket_file(address.path, {what, SOCK_STREAM, false})
              .removed_stale};
}

void check_no_curve_over_inproc(bool curve_given, const std::vector<Address>& addresses)
{
  const bool inproc = std::any_of(addresses.begin(), addresses.end(),
                                  [](const Address& a) { return a.scheme == Scheme::inproc; });
  if (inproc && curve_given) {
    throw UsageError("--zmq-curve secures tcp:// and ipc:// connections; inproc:// has none "
                     "(its messages never leave this process): drop --zmq-curve");
  }
}

} // namespace netprof::zeromq
