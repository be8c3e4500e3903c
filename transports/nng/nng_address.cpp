#include "nng_address.hpp"

#include "common/free_ports.hpp"
#include "common/ipv4_address.hpp"
#include "common/socket_file.hpp"

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

// The channel `offset` ports after the data's, or at its path with `suffix` after it; `where`
// says which port it takes, for the refusal past 65535.
NngAddress channel_address(const NngAddress& data, std::uint16_t offset, const char* suffix,
                           const char* where)
{
  NngAddress channel_at = data;
  if (data.scheme == Scheme::ipc) {
    channel_at.path += suffix;
    channel_at.url = "ipc://" + channel_at.path;
    return channel_at;
  }
  if (data.port > 65535 - offset) {
    refuse(data.url, std::string(where) + ", and there is none after 65535");
  }
  channel_at.port = static_cast<std::uint16_t>(data.port + offset);
  channel_at.url = "tcp://" + channel_at.host + ":" + std::to_string(channel_at.port);
  return channel_at;
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
  return channel_address(data, 1, back_channel_suffix, "the back channel listens at the next port");
}

NngAddress control_channel_address(const NngAddress& data)
{
  return channel_address(data, 2, control_channel_suffix,
                         "pushpull's control channel listens two ports on (the back channel "
                         "takes the next)");
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

std::uint16_t pick_free_port_run(const std::string& host, std::size_t channels)
{
  in_addr where{};
  inet_pton(AF_INET, host.c_str(), &where);
  try {
    return transport_common::pick_free_ports(SOCK_STREAM, where, 1, channels).front();
  } catch (const TransportError&) {
    throw TransportError("cannot find " + std::to_string(channels) +
                         " free consecutive tcp ports on " + host +
                         " for the nng data and its channels; give --nng tcp://host:port");
  }
}

} // namespace netprof::nng_parts
