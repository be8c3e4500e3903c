#include "free_ports.hpp"

#include <netprof/errors.hpp>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
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

std::vector<std::uint16_t> pick_free_ports(int socket_type, in_addr host, std::size_t count,
                                           std::size_t block)
{
  // Each probe stays bound until the end, so no port is picked twice and no block overlaps
  // another; a port whose block is taken further up is left bound and another is tried.
  constexpr int attempts = 64;
  ProbingSockets sockets;
  std::vector<std::uint16_t> ports;
  const auto bind_port = [&](std::uint16_t port) -> std::optional<std::uint16_t> {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr = host;
    address.sin_port = htons(port);
    socklen_t length = sizeof address;
    const int fd = sockets.open(socket_type);
    if (fd < 0)
      throw TransportError("cannot pick a free " + describe(socket_type, host) + ": " +
                           std::generic_category().message(errno));
    if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      return std::nullopt;
    return ntohs(address.sin_port);
  };
  for (std::size_t i = 0; i < count; ++i) {
    std::optional<std::uint16_t> found;
    for (int attempt = 0; attempt < attempts && !found; ++attempt) {
      const std::optional<std::uint16_t> first = bind_port(0);
      if (!first)
        throw TransportError("cannot pick a free " + describe(socket_type, host) + ": " +
                             std::generic_category().message(errno));
      bool whole = *first + block - 1 <= 65'535;
      for (std::size_t next = 1; whole && next < block; ++next)
        whole = bind_port(static_cast<std::uint16_t>(*first + next)).has_value();
      if (whole)
        found = first;
    }
    if (!found)
      throw TransportError("cannot pick " + std::to_string(block) + " consecutive free " +
                           describe(socket_type, host) + "s");
    ports.push_back(*found);
  }
  return ports;
}

} // namespace netprof::transport_common
