#pragma once

#include <netprof/clock.hpp>

#include <ctime>

// Waiting on one socket with ppoll, for the transports that drive a library's socket themselves.

namespace netprof::transport_common {

// ppoll's timeout for `wait` (a negative wait is no wait).
timespec timespec_of(Nanoseconds wait) noexcept;

// Waits for a non-blocking connect(2) on `fd` to finish, until `deadline` at most: 0 when the
// connection is made, the connect's errno when it failed, ETIMEDOUT when nothing answered in time
// (a host that drops packets: a blocking connect would wait for TCP's own two minutes).
int await_connect(int fd, Clock::time_point deadline) noexcept;

} // namespace netprof::transport_common
