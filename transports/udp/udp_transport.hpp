#pragma once

// UDP unicast, MADARA style: the first -u is this process's own bind address, every further
// -u is a peer it sends to. A publisher may start without peers and learn each subscriber
// from its hello (Endpoint::add_peer_from_last_message).

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

std::unique_ptr<Transport> make_udp_transport();

} // namespace netprof
