#pragma once

// The sizes a stream transport's endpoint works within, derived the same way for tcp and uds.

#include "stream_endpoint.hpp"

#include <netprof/transport.hpp>

#include <algorithm>
#include <cstddef>

namespace netprof::stream {

// The longest message a framed connection carries: ZeroMQ's 16 MiB of payload, with room for
// the header in front of it. A subscriber reads up to this whatever its own -s, since its
// publisher's may be larger.
inline constexpr std::size_t max_framed_message = (std::size_t{16} << 20) + 65536;
// send() takes at least this much, however small the socket buffers.
inline constexpr std::size_t min_sendable_message = 65536;
// Connections beyond --subscribers a publisher keeps: strangers, and subscribers restarted
// before their old connection closed. When all are taken, the stranger that came first goes.
inline constexpr std::size_t spare_connections = 64;
inline constexpr std::size_t most_connections = 1024 + spare_connections;

// A framed connection's largest message: what the send buffer holds (so that the kernel takes
// one whole message into an empty socket, and a sender never has to wait for its reader to
// get one out), within [min_sendable_message, max_framed_message].
inline std::size_t framed_sendable(std::size_t granted_send_buffer) noexcept
{
  return std::clamp(granted_send_buffer, min_sendable_message, max_framed_message);
}

// `sendable`: what send() takes; `read_cap`: the longest message a subscriber reads. A
// publisher reads only control messages, so it closes any connection that sends more than the
// largest of them (when the core states it).
inline StreamLimits stream_limits(const EndpointRequest& request, std::size_t sendable,
                                  std::size_t read_cap) noexcept
{
  StreamLimits limits;
  const bool publisher = request.role == Role::publisher;
  limits.max_message_size = sendable;
  limits.read_limit = publisher && request.largest_control_message > 0
                          ? std::min(request.largest_control_message, read_cap)
                          : read_cap;
  limits.expected_message = request.message_size;
  limits.max_connections =
      publisher ? std::min(request.subscribers + spare_connections, most_connections) : 1;
  return limits;
}

} // namespace netprof::stream
