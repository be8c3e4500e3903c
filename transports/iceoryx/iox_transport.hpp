#pragma once

// iceoryx 2 (Debian's 2.0.3) on this host: zero-copy publish/subscribe through RouDi's shared
// memory. --iceoryx NAME names the services; iox_endpoint.hpp says how they carry the run.

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor iceoryx_transport();

} // namespace netprof
