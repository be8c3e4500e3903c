#pragma once

// ZeroMQ over tcp:// or ipc://, MADARA style: the first --zmq is this process's own endpoint
// (bound), every further --zmq a peer's (connected). One socket per process carries the data
// and, in reverse, the back channel, so a publisher needs only its own endpoint and each
// subscriber connects to it; a publisher may also connect to subscribers' endpoints instead.

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor zmq_transport();

} // namespace netprof
