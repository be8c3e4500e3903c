#include "common/server_address.hpp"

#include "common/free_ports.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>
#include <vector>

namespace netprof::transport_common {

namespace {

std::string example(const ServerNaming& naming)
{
  return "e.g. " + naming.option + " 127.0.0.1:" + std::to_string(naming.usual_port);
}

std::uint16_t parse_port(const std::string& text, const std::string& given,
                         const ServerNaming& naming)
{
  unsigned port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (error != std::errc{} || end != text.data() + text.size() || port == 0 || port > 65535)
    throw UsageError("bad " + naming.option + " value '" + given +
                     "': expected HOST:PORT with a port of 1 to 65535, " + example(naming));
  return static_cast<std::uint16_t>(port);
}

std::uint16_t free_loopback_port()
{
  in_addr loopback{};
  loopback.s_addr = htonl(INADDR_LOOPBACK);
  return pick_free_ports(SOCK_STREAM, loopback, 1).front();
}

} // namespace

ServerAddress parse_server_address(const std::optional<std::string>& given,
                                   const ServerNaming& naming)
{
  ServerAddress server;
  if (!given || given->empty())
    return server;
  const std::size_t colon = given->rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError("bad " + naming.option + " value '" + *given + "': expected the " +
                     naming.kind + "'s HOST:PORT, " + example(naming));
  std::string host = given->substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  server.port = parse_port(given->substr(colon + 1), *given, naming);
  server.host = host;
  return server;
}

LocalPairPlan server_pair_plan(const ServerNaming& naming, const ServerAddress& server,
                               const std::string& prefix_option, const std::string& prefix,
                               std::size_t subscribers, std::optional<std::uint16_t>& own_port)
{
  const bool own_server = !server.host;
  const std::string host = own_server ? "127.0.0.1" : *server.host;
  const std::uint16_t port = own_server ? free_loopback_port() : server.port;
  if (own_server)
    own_port = port;
  const std::string address =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  const std::vector<std::string> arguments = {naming.option, address, prefix_option, prefix};
  return {arguments, std::vector(subscribers, arguments), {}};
}

std::string named_server(const ServerNaming& naming, const ServerAddress& server)
{
  if (!server.host)
    throw UsageError(naming.option + " needs the " + naming.kind + "'s HOST:PORT (only " +
                     "--local-pair starts a " + naming.kind + " of its own), " + example(naming));
  return *server.host + ":" + std::to_string(server.port);
}

} // namespace netprof::transport_common
