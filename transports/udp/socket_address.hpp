#pragma once

// -u host:port parsing lives in transports/common (TCP parses host:port the same way); UDP code
// keeps naming it udp::.

#include "common/ipv4_address.hpp"

namespace netprof::udp {

using transport_common::HostPort;
using transport_common::parse_ipv4_endpoint;
using transport_common::same_endpoint;
using transport_common::split_host_port;
using transport_common::to_string;

} // namespace netprof::udp
