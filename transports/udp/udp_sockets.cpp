#include "udp_sockets.hpp"

#include "interfaces.hpp"
#include "socket_address.hpp"

#include <netprof/errors.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <system_error>

namespace netprof::udp {

namespace {

constexpr const char* multicast_route_hint =
    "is there a multicast route? on loopback: ip route add 224.0.0.0/4 dev lo, "
    "or give --mc-interface";

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

UniqueFd new_socket()
{
  // CLOEXEC because the local pair starts child processes, which must not inherit the port.
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    throw TransportError("cannot open a UDP socket: " + error_text(errno));
  }
  return UniqueFd(fd);
}

template <typename Value>
void set_option(int fd, int level, int name, const Value& value, const std::string& what)
{
  if (setsockopt(fd, level, name, &value, sizeof value) != 0) {
    throw TransportError("cannot " + what + ": " + error_text(errno));
  }
}

void bind_to(int fd, const sockaddr_in& address)
{
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw TransportError("cannot bind UDP " + to_string(address) + ": " + error_text(errno));
  }
}

sockaddr_in bound_address(int fd)
{
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw TransportError("cannot read the bound UDP address: " + error_text(errno));
  }
  return address;
}

// Every process on a shared medium binds the same address and port, so it also hears its own
// datagrams. It sends from this socket instead: a port of its own (0: the kernel picks), and
// connected to the medium, so that the kernel chooses the route, and with it the source
// address, once. getsockname() then names exactly the source our datagrams carry.
sockaddr_in connect_sender(int fd, const sockaddr_in& source, const sockaddr_in& medium,
                           const std::string& what, const char* hint)
{
  bind_to(fd, source);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&medium), sizeof medium) != 0) {
    const int error = errno;
    throw TransportError("cannot send to " + what + " " + to_string(medium) + ": " +
                         error_text(error) +
                         (hint != nullptr ? std::string(" (") + hint + ")" : ""));
  }
  return bound_address(fd);
}

// The receiving half of a shared medium: the medium's own address and port, shared.
UniqueFd open_shared_receiver(const sockaddr_in& medium)
{
  UniqueFd fd = new_socket();
  set_option(fd.get(), SOL_SOCKET, SO_REUSEADDR, 1,
             "share port " + std::to_string(ntohs(medium.sin_port)) + " (SO_REUSEADDR)");
  bind_to(fd.get(), medium);
  return fd;
}

sockaddr_in any_address()
{
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  return address;
}

} // namespace

UdpSockets open_unicast(const sockaddr_in& own, const std::vector<sockaddr_in>& peers, Role role)
{
  UdpSockets sockets;
  sockets.transport = "udp";
  sockets.receive = new_socket();
  // SO_REUSEADDR stays off on purpose: two processes on one port would split the traffic
  // between them, so a port in use must be an error.
  bind_to(sockets.receive.get(), own);
  sockets.local_addresses.push_back(to_string(bound_address(sockets.receive.get())));
  sockets.peers = peers;
  sockets.learns_peers = true;
  sockets.single_peer =
      role == Role::subscriber ? SinglePeerRoute::connect_socket : SinglePeerRoute::connected_twin;
  return sockets;
}

void connect_socket(int fd, const sockaddr_in& peer)
{
  if (connect(fd, reinterpret_cast<const sockaddr*>(&peer), sizeof peer) != 0) {
    throw TransportError("cannot connect UDP to " + to_string(peer) + ": " + error_text(errno));
  }
}

UniqueFd open_connected_twin(int fd, const sockaddr_in& peer)
{
  const sockaddr_in own = bound_address(fd);
  const std::string what =
      "share port " + std::to_string(ntohs(own.sin_port)) + " with a connected twin (SO_REUSEADDR)";
  set_option(fd, SOL_SOCKET, SO_REUSEADDR, 1, what);
  UniqueFd twin = new_socket();
  set_option(twin.get(), SOL_SOCKET, SO_REUSEADDR, 1, what);
  bind_to(twin.get(), own);
  connect_socket(twin.get(), peer);
  return twin;
}

UdpSockets open_multicast(const MulticastSettings& settings)
{
  const sockaddr_in& group = settings.group;
  const std::string group_text = to_string(group.sin_addr);
  const std::string where =
      settings.interface ? "on " + settings.interface->name + " (" +
                               to_string(settings.interface->address) + ")"
                         : "on the interface the route to " + group_text + " picks";
  UdpSockets sockets;
  sockets.transport = "multicast";
  sockets.receive = open_shared_receiver(group);
  const int receive = sockets.receive.get();
  // Only the groups this socket joined, not every group the host joined on this port (Linux
  // delivers those too by default).
  set_option(receive, IPPROTO_IP, IP_MULTICAST_ALL, 0, "turn off IP_MULTICAST_ALL");

  ip_mreqn membership{};
  membership.imr_multiaddr = group.sin_addr;
  if (settings.interface) {
    membership.imr_address = settings.interface->address;
    membership.imr_ifindex = static_cast<int>(settings.interface->index);
  }
  if (setsockopt(receive, IPPROTO_IP, IP_ADD_MEMBERSHIP, &membership, sizeof membership) != 0) {
    const int error = errno;
    throw TransportError("cannot join multicast group " + group_text + " " + where + ": " +
                         error_text(error) +
                         (error == ENODEV ? std::string(" (") + multicast_route_hint + ")" : ""));
  }

  sockets.send = new_socket();
  const int send = sockets.send.get();
  sockaddr_in source = any_address();
  if (settings.interface) {
    ip_mreqn outgoing{};
    outgoing.imr_address = settings.interface->address;
    outgoing.imr_ifindex = static_cast<int>(settings.interface->index);
    set_option(send, IPPROTO_IP, IP_MULTICAST_IF, outgoing,
               "send multicast " + where + " (IP_MULTICAST_IF)");
    source.sin_addr = settings.interface->address;
  }
  set_option(send, IPPROTO_IP, IP_MULTICAST_TTL, settings.ttl,
             "set the multicast TTL to " + std::to_string(settings.ttl));
  set_option(send, IPPROTO_IP, IP_MULTICAST_LOOP, settings.loopback ? 1 : 0,
             "set multicast loopback");
  const sockaddr_in own =
      connect_sender(send, source, group, "multicast group", multicast_route_hint);

  sockets.own_source = own;
  sockets.peers = {group};
  sockets.local_addresses = {to_string(group), to_string(own)};
  sockets.notes.push_back("multicast group " + group_text + " joined " + where + ", TTL " +
                          std::to_string(settings.ttl) + ", loopback " +
                          (settings.loopback ? "on" : "off"));
  return sockets;
}

UdpSockets open_broadcast(const sockaddr_in& address)
{
  UdpSockets sockets;
  sockets.transport = "broadcast";
  sockets.receive = open_shared_receiver(address);
  sockets.send = new_socket();
  const int send = sockets.send.get();
  set_option(send, SOL_SOCKET, SO_BROADCAST, 1, "allow broadcast (SO_BROADCAST)");
  const sockaddr_in own = connect_sender(
      send, any_address(), address, "broadcast",
      "255.255.255.255 needs a default route; otherwise give the subnet's broadcast address");

  sockets.own_source = own;
  sockets.peers = {address};
  sockets.local_addresses = {to_string(address), to_string(own)};
  return sockets;
}

} // namespace netprof::udp
