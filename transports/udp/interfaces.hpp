#pragma once

// The host's IPv4 interfaces live in transports/common (the DDS transports pick theirs the same
// way); UDP code keeps naming them udp::.

#include "common/ipv4_interfaces.hpp"

namespace netprof::udp {

using transport_common::broadcast_addresses;
using transport_common::find_ipv4_interface;
using transport_common::ipv4_interfaces;
using transport_common::Ipv4Interface;
using transport_common::to_string;

} // namespace netprof::udp
