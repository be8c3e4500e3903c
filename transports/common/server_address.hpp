#pragma once

// Where the processes of a transport through a server meet (mqtt's broker, redis's server): at
// the HOST:PORT its naming option gives, or, in a local pair that names none, at a server of the
// pair's own on a free loopback port (OwnedServer starts it). Refusals name the option, the kind
// of server and its usual port, as the user would type them.

#include <netprof/transport_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::transport_common {

struct ServerNaming {
  std::string option;       // "--mqtt"
  std::string kind;         // "broker", "server"
  std::uint16_t usual_port; // 1883: the port of the examples
};

struct ServerAddress {
  std::optional<std::string> host; // none: the option given bare (a local pair starts one)
  std::uint16_t port = 0;
};

// The option's value: HOST:PORT or [IPV6]:PORT; none or empty names no server. Throws
// UsageError for anything else.
ServerAddress parse_server_address(const std::optional<std::string>& given,
                                   const ServerNaming& naming);

// A local pair through the named server, or through one of its own on a free loopback port when
// none is named (`own_port` then holds that port): every process gets `option HOST:PORT
// prefix_option prefix`.
LocalPairPlan server_pair_plan(const ServerNaming& naming, const ServerAddress& server,
                               const std::string& prefix_option, const std::string& prefix,
                               std::size_t subscribers, std::optional<std::uint16_t>& own_port);

// HOST:PORT of the named server, for a role started on its own; UsageError when none is named
// (only a local pair starts a server of its own).
std::string named_server(const ServerNaming& naming, const ServerAddress& server);

} // namespace netprof::transport_common
