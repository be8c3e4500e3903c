#include "free_ports.hpp"

#include "unique_fd.hpp"

#include <netprof/errors.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace netprof::udp {

std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count)
{
  std::vector<UniqueFd> sockets;
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < count; ++i) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
      sockets.emplace_back(fd);
    }
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw TransportError("cannot pick a free loopback UDP port: " +
                           std::generic_category().message(errno));
    }
    ports.push_back(ntohs(address.sin_port));
  }
  return ports;
}

} // namespace netprof::udp
