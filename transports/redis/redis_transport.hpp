#pragma once

// Redis pub/sub through a Redis server: the publisher publishes to PREFIX:data, each subscriber
// echoes to PREFIX:echo:ITS-CLIENT-ID; --redis HOST:PORT names the server, and a local pair given
// a bare --redis starts a redis-server of its own (redis_server.hpp).

#include <netprof/registry.hpp>

namespace netprof {

TransportDescriptor redis_transport();

} // namespace netprof
