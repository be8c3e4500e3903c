#pragma once

// What --reliability and --history mean on the three UDP transports: nothing but best-effort.

#include <netprof/qos.hpp>

#include <string_view>

namespace netprof::udp {

// Best-effort with no history, stated; reliable and any history refused with why.
EffectiveQos datagram_qos(const QosRequest& request, std::string_view transport);

} // namespace netprof::udp
