#pragma once

// What --local-pair starts for ZeroMQ: each process binds its own endpoint (the ones given, or
// tcp on free loopback ports), and every subscriber also connects to the publisher's.

#include "zmq_address.hpp"
#include "zmq_endpoint.hpp"

#include <netprof/transport_plan.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace netprof::zeromq {

struct LocalPairRequest {
  const std::vector<std::string>& endpoints; // --zmq as given: none, the publisher's, or both
  Pattern pattern = Pattern::pubsub;
  int io_threads = 1;
  Inproc inproc = Inproc::refused;
  bool curve_given = false;
  std::size_t subscribers = 1;
  // Each process's streams (--publishers times --topics): a port picked is the first of
  // ports_per_stream times this many free in a row, since stream k moves every port up by 2k.
  std::size_t streams = 1;
};

// The pair's command-line arguments, with every port and path left open made definite.
// Throws UsageError for endpoints a pair cannot use, TransportError when the process's limits
// are too low for it.
LocalPairPlan local_pair_plan(const LocalPairRequest& request);

} // namespace netprof::zeromq
