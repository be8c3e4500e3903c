#include "free_ports.hpp"

#include "common/free_ports.hpp"

#include <netinet/in.h>
#include <sys/socket.h>

namespace netprof::udp {

std::vector<std::uint16_t> pick_free_loopback_ports(std::size_t count, std::size_t block)
{
  return transport_common::pick_free_ports(SOCK_DGRAM, in_addr{htonl(INADDR_LOOPBACK)}, count,
                                           block);
}

} // namespace netprof::udp
