#pragma once

// libzmq aborts the process (an assertion, exit status 134) when it cannot make a descriptor
// or a thread it needs, and it needs them only once the socket opens. So the limits that
// decide it are checked before: RLIMIT_NOFILE (ulimit -n), and RLIMIT_AS (ulimit -v) and
// RLIMIT_DATA (ulimit -d), against what libzmq was measured to take (docs/transport-zmq.md,
// "Resource limits"). Too little throws TransportError naming the limit and how to raise it.

#include <cstddef>
#include <string>

namespace netprof::zeromq {

struct ResourceNeeds {
  int io_threads = 1;
  std::size_t connections = 1; // peers this process connects to, and peers that connect to it
  std::size_t queue_bytes = 0; // what ZeroMQ may hold in its queues, both directions
};

// Descriptors libzmq opens for a context with `io_threads` I/O threads and one socket: an
// eventfd mailbox each for the context, its reaper thread, every I/O thread and the socket,
// and an epoll descriptor for the reaper and each I/O thread.
constexpr std::size_t zeromq_descriptors(int io_threads) noexcept
{
  return 4 + 2 * static_cast<std::size_t>(io_threads);
}

// Descriptors this process needs beyond those it holds: ZeroMQ's own, the bound endpoint,
// one per connection, and one for the files a run reads and writes at its end.
std::size_t descriptors_needed(const ResourceNeeds& needs) noexcept;

// Throws TransportError when a limit is below what opening the socket needs.
void check_resource_limits(const ResourceNeeds& needs);

// The same check, for the descriptors alone: what the local pair's parent needs before it
// picks ports for its children, who then check everything themselves.
void check_descriptor_limit(const ResourceNeeds& needs);

} // namespace netprof::zeromq
