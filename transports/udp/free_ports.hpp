#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof::udp {

// `count` distinct UDP ports the kernel reports free on 127.0.0.1, for the local pair. The
// probing sockets stay open until all ports are known, so the ports differ; they are closed
// before the children bind, a small race that a port in use would report clearly.
// Throws TransportError.
std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count);

} // namespace netprof::udp
