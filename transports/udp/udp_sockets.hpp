#pragma once

// The socket-setup strategies of the UDP transports: each opens and configures the sockets of
// one mode, and the one endpoint class (UdpEndpoint) does the rest the same way for all.
//
// Unicast: one socket, bound to the process's own address, sending to its peers.
// Multicast and broadcast (shared media): every process binds the same group (or broadcast)
// address and port with SO_REUSEADDR and hears everything sent there, its own datagrams
// included. So that it can tell those apart, it sends from a second socket with a port of its
// own, and drops what comes from that address.
//
// One peer (unicast): the kernel looks the route up on every sendto() of an unconnected
// socket, about half a microsecond on loopback, but only once for a connected one. So a
// subscriber connects its one socket to its publisher (the kernel then drops datagrams from
// anyone else), and a publisher with a single subscriber sends through a twin socket bound to
// its own port and connected to that subscriber: the kernel hands the twin that subscriber's
// datagrams and the first socket everyone else's, so newcomers are still heard.

#include "multicast_options.hpp"
#include "unique_fd.hpp"

#include <netprof/transport.hpp>

#include <netinet/in.h>

#include <optional>
#include <string>
#include <vector>

namespace netprof::udp {

// How the endpoint reaches a single peer: see the top of this file.
enum class SinglePeerRoute {
  unconnected,    // shared media: already connected senders
  connect_socket, // unicast subscriber: `receive` itself, connected to its one peer
  connected_twin  // unicast publisher: a twin of `receive` while there is one peer
};

struct UdpSockets {
  std::string transport;                 // registry name, for the endpoint's facts
  UniqueFd receive;                      // bound; the endpoint drains it
  UniqueFd send;                         // not valid: `receive` sends too
  std::optional<sockaddr_in> own_source; // shared media: datagrams from here are our own
  std::vector<sockaddr_in> peers;
  bool learns_peers = false; // unicast: a publisher adopts the senders of hellos
  SinglePeerRoute single_peer = SinglePeerRoute::unconnected;
  std::vector<std::string> local_addresses;
  std::vector<std::string> notes;

  int send_fd() const noexcept { return send.valid() ? send.get() : receive.get(); }
};

// Binds `own` without SO_REUSEADDR, so a port in use is an error rather than shared traffic.
UdpSockets open_unicast(const sockaddr_in& own, const std::vector<sockaddr_in>& peers, Role role);

// Connects `fd` to `peer`. Throws TransportError.
void connect_socket(int fd, const sockaddr_in& peer);

// A socket on the same address and port as the bound `fd`, connected to `peer`. Lets the
// port be shared from now on (SO_REUSEADDR on both): only a socket that asks to share it can
// join, and netprof's own unicast sockets never ask, so a port in use is still an error for
// them. Throws TransportError.
UniqueFd open_connected_twin(int fd, const sockaddr_in& peer);

// Joins the group on the chosen interface (or the one its route picks). Throws TransportError
// with the kernel's reason and a hint when the join or the route to the group fails.
UdpSockets open_multicast(const MulticastSettings& settings);

// Binds and sends to a broadcast address with SO_BROADCAST.
UdpSockets open_broadcast(const sockaddr_in& address);

} // namespace netprof::udp
