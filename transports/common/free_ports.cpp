#include "free_ports.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace netprof::transport_common {

namespace {

class ProbingSockets {
public:
  ProbingSockets() = default;
  ProbingSockets(const ProbingSockets&) = delete;
  ProbingSockets& operator=(const ProbingSockets&) = delete;
  ~ProbingSockets()
  {
    for (const int fd : m_fds)
      close(fd);
  }

  int open(int socket_type)
  {
    const int fd = socket(AF_INET, socket_type | SOCK_CLOEXEC, 0);
    if (fd >= 0)
      m_fds.push_back(fd);
    return fd;
  }

private:
  std::vector<int> m_fds;
};

std::string describe(int socket_type, in_addr host)
{
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &host, text, sizeof text);
  return std::string(socket_type == SOCK_DGRAM ? "UDP" : "TCP") + " port on " + text;
}

} // namespace

std::vector<std::uint16_t> pick_free_ports(int socket_type, in_addr host, std::size_t count)
{
  ProbingSockets sockets;
  std::vector<std::uint16_t> ports;
  for (std::size_t i = 0; i < count; ++i) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr = host;
    socklen_t length = sizeof address;
    const int fd = sockets.open(socket_type);
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw TransportError("cannot pick a free " + describe(socket_type, host) + ": " +
                           std::generic_category().message(errno));
    }
    ports.push_back(ntohs(address.sin_port));
  }
  return ports;
}

} // namespace netprof::transport_common
