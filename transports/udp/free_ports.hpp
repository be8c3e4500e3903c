#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof::udp {

// `count` distinct UDP ports free on 127.0.0.1, for the local pair. Throws TransportError.
std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count);

} // namespace netprof::udp
