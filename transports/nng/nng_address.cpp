#include "nng_address.hpp"

#include "common/free_ports.hpp"
#include "common/ipv4_address.hpp"
#include "common/socket_file.hpp"
#include "common/unique_fd.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>
#include <string_view>

namespace netprof::nng_parts {

namespace {

constexpr std::string_view flag = "--nng";
constexpr std::string_view tcp_prefix = "tcp://";
constexpr std::string_view ipc_prefix = "ipc://";

[[noreturn]] void refuse(const std::string& value, const std::string& why)
{
  throw UsageError("bad --nng value '" + value + "': " + why);
}

bool port_is_free(in_addr host, std::uint16_t port)
{
  const transport_common::UniqueFd probe(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe.valid()) {
    return false;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr = host;
  address.sin_port = htons(port);
  return bind(probe.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
}

} // namespace

NngAddress parse_nng_address(const std::string& value, bool allow_port_zero)
{
  NngAddress address;
  const std::string_view text = value;
  if (text.starts_with(tcp_prefix)) {
    const sockaddr_in parsed =
        transport_common::parse_ipv4_endpoint(text.substr(tcp_prefix.size()), flag);
    address.scheme = Scheme::tcp;
    address.port = ntohs(parsed.sin_port);
    char host[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &parsed.sin_addr, host, sizeof host);
    address.host = host;
    if (address.port == 0 && !allow_port_zero) {
      refuse(value, "give a port other than 0 (only --local-pair picks one itself)");
    }
    address.url = "tcp://" + address.host + ":" + std::to_string(address.port);
    return address;
  }
  if (text.starts_with(ipc_prefix)) {
    address.scheme = Scheme::ipc;
    address.path = std::string(text.substr(ipc_prefix.size()));
    if (address.path.empty() || address.path.front() != '/') {
      refuse(value, "an ipc:// URL needs an absolute path, as in ipc:///tmp/netprof.ipc");
    }
    // The back channel's file, with its suffix, must fit sun_path too.
    if (address.path.size() + std::strlen(back_channel_suffix) >
        transport_common::max_socket_path) {
      refuse(value, "the path is too long for a Unix-domain socket (at most " +
                        std::to_string(transport_common::max_socket_path -
                                       std::strlen(back_channel_suffix)) +
                        " bytes, leaving room for the back channel's \".back\")");
    }
    address.url = "ipc://" + address.path;
    return address;
  }
  refuse(value, "expected tcp://host:port or ipc:///path");
}

NngAddress back_channel_address(const NngAddress& data)
{
  NngAddress back = data;
  if (data.scheme == Scheme::ipc) {
    back.path += back_channel_suffix;
    back.url = "ipc://" + back.path;
    return back;
  }
  if (data.port == 65535) {
    refuse(data.url, "the back channel listens at the next port, and there is none after 65535");
  }
  back.port = static_cast<std::uint16_t>(data.port + 1);
  back.url = "tcp://" + back.host + ":" + std::to_string(back.port);
  return back;
}

NngAddress reachable_form(const NngAddress& listening)
{
  NngAddress reachable = listening;
  if (listening.scheme == Scheme::tcp && listening.host == "0.0.0.0") {
    reachable.host = "127.0.0.1";
    reachable.url = "tcp://127.0.0.1:" + std::to_string(listening.port);
  }
  return reachable;
}

std::uint16_t pick_free_port_pair(const std::string& host)
{
  in_addr where{};
  inet_pton(AF_INET, host.c_str(), &where);
  // Each try asks the kernel for a free port and checks the one after it; a handful of tries
  // is plenty on a host that is not short of ports.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::uint16_t port = transport_common::pick_free_ports(SOCK_STREAM, where, 1).front();
    if (port < 65535 && port_is_free(where, static_cast<std::uint16_t>(port + 1))) {
      return port;
    }
  }
  throw TransportError("cannot find two free consecutive tcp ports on " + host +
                       " for the nng data and back channel; give --nng tcp://host:port");
}

} // namespace netprof::nng_parts
