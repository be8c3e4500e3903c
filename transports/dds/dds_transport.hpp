#pragma once

// Eclipse Cyclone DDS through its C API: a data topic and a back-channel topic in one DDS
// domain; --dds-reliability and --dds-history set the QoS of both (dds_endpoint.hpp says how).

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor dds_transport();

} // namespace netprof
