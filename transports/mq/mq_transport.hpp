#pragma once

// POSIX message queues on one host: --mq NAME. The publisher creates /netprof-NAME for
// everything its subscribers send back; each subscriber creates /netprof-NAME:ID for the data
// sent to it. See docs/transport-mq.md.

#include <netprof/registry.hpp>

#include <memory>

namespace netprof {

TransportDescriptor mq_transport();

} // namespace netprof
