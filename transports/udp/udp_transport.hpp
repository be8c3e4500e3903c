#pragma once

// The UDP transports: unicast ("udp": the first -u is this process's own bind address, every
// further -u a peer; a publisher also learns subscribers from their hellos), "multicast" (-m)
// and "broadcast" (-b). All three carry messages beyond one datagram and can batch sends; the
// options for that apply to every mode, so all three read udp::tuning_options(), shown in the
// udp entry's option group.

#include <netprof/registry.hpp>

namespace netprof {

TransportDescriptor udp_transport();
TransportDescriptor multicast_transport();
TransportDescriptor broadcast_transport();

} // namespace netprof
