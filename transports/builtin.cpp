#include "shm/shm_transport.hpp"
#include "udp/udp_transport.hpp"
#include "zmq/zmq_transport.hpp"

#include <netprof/registry.hpp>

namespace netprof {

void register_builtin_transports(TransportRegistry& registry)
{
  // The UDP modes share the options that apply to all of them (large messages, batching).
  const UdpTransportFactories udp = make_udp_transport_factories();
  registry.add({"udp", "UDP unicast: -u own_host:port, then one -u per peer", udp.unicast});
  registry.add({"multicast", "UDP multicast: -m group:port (default 239.255.0.1:4150)",
                udp.multicast});
  registry.add({"broadcast", "UDP broadcast: -b broadcast_address:port", udp.broadcast});
  registry.add({"zmq", "ZeroMQ over tcp:// or ipc://: --zmq own_endpoint, then --zmq per peer",
                make_zmq_transport});
  registry.add({"shm", "shared-memory ring on this host: --shm NAME (publisher creates it)",
                make_shm_transport});
}

} // namespace netprof
