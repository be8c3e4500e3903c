#pragma once

// eProsima Fast DDS through its DCPS C++ API: the dds transport's topics, type and QoS on
// another vendor's DDS, so that each can be measured and either can be the other's peer over
// RTPS; --fastdds-reliability and --fastdds-history set the QoS of both topics
// (fastdds_endpoint.hpp says how).

#include <netprof/registry.hpp>

namespace netprof {

TransportDescriptor fastdds_transport();

} // namespace netprof
