#pragma once

// NNG (nanomsg-next-gen) over tcp:// or ipc://: the publisher listens at --nng, subscribers
// dial it; --nng-pattern picks pub/sub, push/pull or pair for the data. The back channel rides
// NNG in reverse (nng_endpoint.hpp says how).

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor nng_transport();

} // namespace netprof
