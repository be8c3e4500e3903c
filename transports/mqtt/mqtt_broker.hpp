#pragma once

// The MQTT broker a local pair (or a test) starts when the user names none: Debian's mosquitto,
// listening on 127.0.0.1 only at a port the pair picked, from a configuration file netprof writes
// into a private temporary folder; started, watched and stopped by its PID as
// common/owned_server.hpp does for every such server.

#include "common/owned_server.hpp"

#include <cstdint>
#include <string>

namespace netprof::mqtt_parts {

// The configuration netprof's own broker runs with: one listener on 127.0.0.1:port, anonymous
// clients, no persistence, and no limit on a subscriber's queue (so QoS 1 loses nothing to the
// broker's max_queued_messages; the publisher's window bounds what is unacknowledged).
std::string owned_broker_config(std::uint16_t port);

// mosquitto, as transport_common::OwnedServer starts it.
transport_common::OwnedServerKind owned_broker_kind();

} // namespace netprof::mqtt_parts
