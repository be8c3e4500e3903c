#pragma once

// The name a broker transport's endpoint goes by at its broker (mqtt's client id, redis's echo
// channel suffix). Each subscriber's echoes come back under its id, so ids must differ between
// the endpoints of one process as well as between processes and runs on one broker.

#include <string>

namespace netprof::transport_common {

// netprof-PID-COUNTER-RANDOM: the counter separates endpoints of one process, the PID processes
// of one host, 32 random bits hosts and runs.
std::string broker_client_id();

} // namespace netprof::transport_common
