#pragma once

// What both DDS transports (dds: Cyclone, fastdds: Fast DDS) hand their endpoint: the same
// settings, derived from the same options (dds_family_options.hpp), so that the two vendors'
// endpoints are configured alike. No vendor's API here.

#include "dds_qos_choice.hpp"

#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::transport_common {

// How a waiting endpoint learns that samples came (--dds-notify, --fastdds-notify). What each
// means with a vendor's threads is that vendor's notify_meaning().
enum class DdsNotify {
  listener, // the vendor's receive thread hands them to the core's sink itself (as ddsperf does)
  waitset,  // the core's thread sleeps in a waitset and takes them
  poll      // the core's thread takes in a loop, never sleeping
};
const char* notify_name(DdsNotify notify) noexcept;

// The one interface --VENDOR-interface keeps DDS on (the multi-host launcher gives each host the
// one facing the others), as found among the host's when the options were parsed.
struct DdsInterface {
  std::string name;    // "eth0"
  std::string address; // its IPv4 address, "10.77.0.2"
};

// What the transport derived from the command line for one endpoint.
struct DdsEndpointSettings {
  Role role = Role::publisher;
  std::string topic_prefix;              // topics PREFIX_data and PREFIX_echo
  std::uint32_t domain = 0;              // --VENDOR-domain
  bool loopback = false;                 // --VENDOR-loopback
  std::optional<DdsInterface> interface; // --VENDOR-interface (never with loopback)
  QosChoice qos;                         // every reader and writer of the run
  std::size_t queue_length_bytes = 0;    // -q: keep-all's history, in samples' worth
  std::size_t message_bytes = 0;         // header + payload, to turn -q into samples
  std::size_t header_bytes = 0;
  std::size_t subscribers = 1; // publisher: how many to discover before discovery is complete
  DdsNotify notify = DdsNotify::waitset;         // --VENDOR-notify
  std::uint32_t keys = 1;                        // --VENDOR-keys: instances (1: an unkeyed type)
  PayloadType payload_type = PayloadType::bytes; // --payload-type
};

} // namespace netprof::transport_common
