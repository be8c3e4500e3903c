#include "socket_buffers.hpp"

#include <netprof/errors.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <system_error>

namespace netprof::transport_common {

namespace {

std::size_t read_buffer_size(int fd, int option, std::string_view protocol)
{
  int value = 0;
  socklen_t length = sizeof value;
  if (getsockopt(fd, SOL_SOCKET, option, &value, &length) != 0) {
    throw TransportError("cannot read " + std::string(protocol) +
                         " socket buffer size: " + std::generic_category().message(errno));
  }
  // Linux doubles what it is given (the other half is its bookkeeping) and reports the doubled
  // figure, so half of it compares with what was asked.
  return value > 0 ? static_cast<std::size_t>(value) / 2 : 0;
}

struct Buffer {
  int fd;
  int option;
  int force_option;
  const char* name;
  const char* force_name;
  const char* sysctl;
  std::size_t* granted;
};

} // namespace

BufferSizes size_socket_buffers(int send_fd, int receive_fd, std::size_t requested,
                                std::string_view protocol)
{
  BufferSizes sizes;
  sizes.requested = requested;
  const Buffer buffers[] = {
      {send_fd, SO_SNDBUF, SO_SNDBUFFORCE, "send", "SO_SNDBUFFORCE", "net.core.wmem_max",
       &sizes.granted_send},
      {receive_fd, SO_RCVBUF, SO_RCVBUFFORCE, "receive", "SO_RCVBUFFORCE", "net.core.rmem_max",
       &sizes.granted_receive},
  };
  if (requested == 0) {
    // Nothing set: the kernel's defaults (net.core.[rw]mem_default).
    for (const Buffer& buffer : buffers) {
      *buffer.granted = read_buffer_size(buffer.fd, buffer.option, protocol);
    }
    return sizes;
  }
  // The kernel caps at INT_MAX / 2 anyway; this only keeps the int from overflowing.
  const int value = static_cast<int>(std::min<std::size_t>(requested, INT_MAX / 2));
  const std::string asked = " (requested " + std::to_string(requested) + " B)";
  for (const Buffer& buffer : buffers) {
    if (setsockopt(buffer.fd, SOL_SOCKET, buffer.option, &value, sizeof value) != 0) {
      throw TransportError("cannot set the " + std::string(protocol) + " " + buffer.name +
                           " buffer to " + std::to_string(value) +
                           " B: " + std::generic_category().message(errno));
    }
    *buffer.granted = read_buffer_size(buffer.fd, buffer.option, protocol);
    if (*buffer.granted >= requested) {
      continue;
    }
    // Clamped by the sysctl. The FORCE variant ignores it but needs CAP_NET_ADMIN (EPERM
    // otherwise): trying is the only reliable test, capabilities being per namespace.
    if (setsockopt(buffer.fd, SOL_SOCKET, buffer.force_option, &value, sizeof value) == 0) {
      *buffer.granted = read_buffer_size(buffer.fd, buffer.option, protocol);
      sizes.notes.push_back(std::string(buffer.name) + " buffer set beyond " + buffer.sysctl +
                            " with " + buffer.force_name + ": granted " +
                            std::to_string(*buffer.granted) + " B" + asked);
    } else {
      sizes.notes.push_back(std::string(buffer.name) + " buffer clamped to " +
                            std::to_string(*buffer.granted) + " B by " + buffer.sysctl + asked);
    }
  }
  return sizes;
}

} // namespace netprof::transport_common
