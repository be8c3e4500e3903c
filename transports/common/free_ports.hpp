#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof::transport_common {

// `count` distinct ports of this socket type (SOCK_DGRAM, SOCK_STREAM) that the kernel reports
// free on `host`, for a local pair's or a script's processes. The probing sockets stay open
// until all ports are known, so the ports differ; they are closed before anyone binds, a small
// race that a port in use would report clearly. `block`: each port is the first of that many
// free in a row, no two blocks overlapping (the streams of --publishers: port + k). Throws
// TransportError.
std::vector<std::uint16_t> pick_free_ports(int socket_type, in_addr host, std::size_t count,
                                           std::size_t block = 1);

} // namespace netprof::transport_common
