#include "udp/udp_transport.hpp"

#include <netprof/registry.hpp>

namespace netprof {

void register_builtin_transports(TransportRegistry& registry)
{
  registry.add({"udp", "UDP unicast: -u own_host:port, then one -u per peer", make_udp_transport});
}

} // namespace netprof
