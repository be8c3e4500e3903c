#pragma once

// The Redis server a local pair (or a test) starts when the user names none: Debian's
// redis-server, listening on 127.0.0.1 only at a port the pair picked, from a configuration file
// netprof writes into a private temporary folder (also the server's working directory); started,
// watched and stopped by its PID as common/owned_server.hpp does for every such server.

#include "common/owned_server.hpp"

#include <cstdint>
#include <string>

namespace netprof::redis_parts {

// The configuration netprof's own server runs with: 127.0.0.1:port only, protected mode, no
// persistence (no RDB snapshots, no append-only file), no Unix socket, its working directory
// `folder`; Redis's default client-output-buffer-limit for pub/sub clients is kept, so a lagging
// subscriber is disconnected as a default server would.
std::string owned_server_config(std::uint16_t port, const std::string& folder);

// redis-server, as transport_common::OwnedServer starts it.
transport_common::OwnedServerKind owned_server_kind();

} // namespace netprof::redis_parts
