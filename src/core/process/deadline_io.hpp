#pragma once

// A non-blocking socket's reads and writes bounded by a deadline and a stop request, for the
// report relay between a multi-publisher run's processes (report_relay.cpp).

#include "core/process/stop_flag.hpp"

#include <netprof/clock.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace netprof {

// Milliseconds for poll() until `deadline`, at most a tenth of a second: the stop flag is
// looked at between polls (a signal may go to another of the process's threads).
int poll_millis(Clock::time_point deadline);
// Waits until `fd` shows `events` (POLLIN, POLLOUT); false at `deadline` or a stop.
bool wait_for(int fd, short events, Clock::time_point deadline, const StopFlag& stop);
// Sends all of `bytes`; false on an error, at `deadline` or a stop.
bool write_all(int fd, std::span<const std::byte> bytes, Clock::time_point deadline,
               const StopFlag& stop);
// Reads until `out` holds `wanted` bytes, the peer closes, an error, `deadline` or a stop.
void read_up_to(int fd, std::vector<std::byte>& out, std::size_t wanted, Clock::time_point deadline,
                const StopFlag& stop);

} // namespace netprof
