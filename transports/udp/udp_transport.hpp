#pragma once

// The UDP transports: unicast ("udp": the first -u is this process's own bind address, every
// further -u a peer; a publisher also learns subscribers from their hellos), "multicast" (-m)
// and "broadcast" (-b). All three carry messages beyond one datagram and can batch sends; the
// options for that apply to every mode, so the three share one udp::UdpTuningOptions, shown in
// the udp entry's option group.

#include <netprof/registry.hpp>

#include <functional>
#include <memory>

namespace netprof {

namespace udp {
class UdpTuningOptions;
}

using TransportFactory = std::function<std::unique_ptr<Transport>()>;

// The three factories of one registry, sharing one set of tuning options.
struct UdpTransportFactories {
  TransportFactory unicast;
  TransportFactory multicast;
  TransportFactory broadcast;
};
UdpTransportFactories make_udp_transport_factories();

// Unicast with tuning options of its own; its option group includes them.
std::unique_ptr<Transport> make_udp_transport();

// Each reads `tuning` when it opens. Only unicast adds the tuning group to its own options.
std::unique_ptr<Transport> make_udp_transport(std::shared_ptr<udp::UdpTuningOptions> tuning);
std::unique_ptr<Transport> make_multicast_transport(std::shared_ptr<udp::UdpTuningOptions> tuning);
std::unique_ptr<Transport> make_broadcast_transport(std::shared_ptr<udp::UdpTuningOptions> tuning);

} // namespace netprof
