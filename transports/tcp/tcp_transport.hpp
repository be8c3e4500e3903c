#pragma once

// Raw TCP ("tcp"): the publisher listens at its --tcp address and accepts one connection per
// subscriber; a subscriber connects to the publisher's. Messages are length-framed
// (transports/stream/frame_reader.hpp); TCP_NODELAY is on unless --tcp-nodelay off.

#include <netprof/registry.hpp>

namespace netprof {

TransportDescriptor tcp_transport();

} // namespace netprof
