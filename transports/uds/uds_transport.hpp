#pragma once

// Unix-domain sockets ("uds"): the publisher listens at --uds PATH (a socket file, 0600,
// removed at the end) or @NAME (Linux's abstract namespace), a subscriber connects to it; one
// connection per subscriber. SOCK_SEQPACKET (default) keeps each message whole; SOCK_STREAM
// carries them length-framed like tcp.

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor uds_transport();

} // namespace netprof
