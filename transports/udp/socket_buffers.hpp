#pragma once

// Socket buffer sizing lives in transports/common (TCP and Unix sockets size theirs the same
// way); UDP code keeps naming it udp::.

#include "common/socket_buffers.hpp"

#include <cstddef>

namespace netprof::udp {

using transport_common::BufferSizes;

inline BufferSizes size_socket_buffers(int send_fd, int receive_fd, std::size_t requested)
{
  return transport_common::size_socket_buffers(send_fd, receive_fd, requested, "UDP");
}

} // namespace netprof::udp
