#include "dds/dds_transport.hpp"
#include "iceoryx/iox_transport.hpp"
#include "mq/mq_transport.hpp"
#include "nng/nng_transport.hpp"
#include "shm/shm_transport.hpp"
#include "tcp/tcp_transport.hpp"
#include "udp/udp_transport.hpp"
#include "uds/uds_transport.hpp"
#include "zmq/zmq_transport.hpp"

#include <netprof/registry.hpp>

namespace netprof {

void register_builtin_transports(TransportRegistry& registry)
{
  registry.add({"udp", "UDP unicast: -u own_host:port, then one -u per peer", make_udp_transport});
  registry.add({"multicast", "UDP multicast: -m group:port (default 239.255.0.1:4150)",
                make_multicast_transport});
  registry.add({"broadcast", "UDP broadcast: -b broadcast_address:port", make_broadcast_transport});
  registry.add({"zmq", "ZeroMQ over tcp:// or ipc://: --zmq own_endpoint, then --zmq per peer",
                make_zmq_transport});
  registry.add({"shm", "shared-memory ring on this host: --shm NAME (publisher creates it)",
                make_shm_transport});
  registry.add(
      {"tcp", "raw TCP: --tcp host:port, where the publisher listens", make_tcp_transport});
  registry.add({"uds", "Unix-domain sockets: --uds PATH or @NAME, where the publisher listens",
                make_uds_transport});
  registry.add({"mq", "POSIX message queues on this host: --mq NAME", make_mq_transport});
  registry.add({"nng", "NNG over tcp:// or ipc://: --nng URL, where the publisher listens",
                make_nng_transport});
  registry.add({"dds", "Eclipse Cyclone DDS: --dds NAME, the topics' prefix (default netprof)",
                make_dds_transport});
  registry.add({"iceoryx",
                "iceoryx 2 zero-copy pub/sub on this host, through RouDi: --iceoryx NAME",
                make_iceoryx_transport});
}

} // namespace netprof
