#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof::transport_common {

// `count` distinct ports of this socket type (SOCK_DGRAM, SOCK_STREAM) that the kernel reports
// free on `host`, for a local pair's or a script's processes. The probing sockets stay open
// until all ports are known, so the ports differ; they are closed before anyone binds, a small
// race that a port in use would report clearly. Throws TransportError.
std::vector<std::uint16_t> pick_free_ports(int socket_type, in_addr host, std::size_t count);

} // namespace netprof::transport_common
