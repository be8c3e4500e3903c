#include "dds/dds_transport.hpp"
#include "fastdds/fastdds_transport.hpp"
#include "iceoryx/iox_transport.hpp"
#include "mq/mq_transport.hpp"
#include "mqtt/mqtt_transport.hpp"
#include "nng/nng_transport.hpp"
#include "redis/redis_transport.hpp"
#include "shm/shm_transport.hpp"
#include "tcp/tcp_transport.hpp"
#include "udp/udp_transport.hpp"
#include "uds/uds_transport.hpp"
#include "zmq/zmq_transport.hpp"

#include <netprof/registry.hpp>

namespace netprof {

void register_builtin_transports(TransportRegistry& registry)
{
  registry.add(udp_transport());
  registry.add(multicast_transport());
  registry.add(broadcast_transport());
  registry.add(zmq_transport());
  registry.add(shm_transport());
  registry.add(tcp_transport());
  registry.add(uds_transport());
  registry.add(mq_transport());
  registry.add(nng_transport());
  registry.add(dds_transport());
  registry.add(fastdds_transport());
  registry.add(iceoryx_transport());
  registry.add(mqtt_transport());
  registry.add(redis_transport());
}

} // namespace netprof
