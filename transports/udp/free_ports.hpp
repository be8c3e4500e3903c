#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netprof::udp {

// `count` distinct UDP ports free on 127.0.0.1, for the local pair, each the first of `block`
// free in a row (transport_common::pick_free_ports). Throws TransportError.
std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count, std::size_t block = 1);

} // namespace netprof::udp
