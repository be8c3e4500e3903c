#pragma once

// Parsing of --zmq endpoints and the file-system side of ipc://, separate from sockets so it
// can be tested on its own. Parsing throws UsageError with one line naming the value; what
// the system refuses (an ipc path in use, not a socket) throws TransportError.

#include "common/socket_file.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace netprof::zeromq {

enum class Scheme { tcp, ipc, inproc };

// Whether the endpoint is this process's own (bound) or a peer's (connected): only a bound
// endpoint may leave the port or path to ZeroMQ (tcp://host:* or ipc://*).
enum class Use { bind, connect };

// inproc:// joins sockets of one process only: allowed only where publisher and subscriber are
// threads of one process (--local-pair --threads).
enum class Inproc { refused, allowed };

struct Address {
  Scheme scheme = Scheme::tcp;
  std::string text;      // as zmq_bind/zmq_connect take it, e.g. "tcp://127.0.0.1:5555"
  std::string host;      // tcp: as given, IPv6 without its brackets; "*" binds every interface
  std::string port;      // tcp: decimal, or "*" for any free port (bind only)
  std::string path;      // ipc: a file path, "@name" (Linux abstract namespace) or "*" (bind only);
                         // inproc: the name
  bool wildcard = false; // the port or path is left to ZeroMQ
  bool ipv6 = false;     // the socket needs ZMQ_IPV6

  bool is_ipc_file() const noexcept
  {
    return scheme == Scheme::ipc && !wildcard && !path.empty() && path.front() != '@';
  }
};

// Longest ipc:// path: sockaddr_un.sun_path holds 108 bytes with the terminating zero.
inline constexpr std::size_t max_ipc_path = transport_common::max_socket_path;

// Checks an endpoint strictly: tcp://host:port (host: an IPv4 address, [IPv6], a host or
// interface name, or "*" to bind every interface), ipc://path, or inproc://name where
// `inproc` allows it. Every other scheme is refused with the reason. A connected tcp host name
// must resolve.
Address parse_address(std::string_view value, Use use, Inproc inproc = Inproc::refused);

// --zmq-pattern pushpull deals the data over a PUSH/PULL pair of its own, beside the XPUB/XSUB
// that carries everything else: it binds and connects where that one does, at the next tcp port
// (a port left open stays open) or at the ipc path or inproc name with this after it. So each
// stream of --publishers and --topics takes two ports.
inline constexpr std::string_view deal_suffix = ".deal";
inline constexpr std::uint32_t ports_per_stream = 2;
// Throws UsageError when there is no next port (65535), or the path grows past max_ipc_path.
Address deal_address(const Address& address);

// CURVE secures what crosses a socket, and inproc:// crosses none: its messages stay in this
// process. Taken with it, --zmq-curve would claim a handshake that never happens.
// Throws UsageError when `curve_given` and any of `addresses` is inproc://.
void check_no_curve_over_inproc(bool curve_given, const std::vector<Address>& addresses);

// A free loopback-side TCP port on `host` (an IPv4 address; "*" means 127.0.0.1), found by
// binding port 0. Closed again before the caller binds it: a small race that a port in use
// reports clearly. Each is the first of `block` free in a row (the streams of --publishers and
// --topics). Throws TransportError.
std::vector<std::uint16_t> pick_free_tcp_ports(const std::string& host, std::size_t count,
                                               std::size_t block = 1);

// Where the local pair puts its ipc:// sockets when the user leaves the path to netprof:
// $TMPDIR (or /tmp) / netprof-zmq-<pid>-<random>-<role>.ipc.
std::string temporary_ipc_path(std::string_view role);

// What binding an ipc:// file found at its path.
struct IpcBindCheck {
  bool removed_stale = false; // a socket file nobody listens on was removed
};

// libzmq unlinks whatever is at an ipc:// path before it binds, so left alone it would
// silently steal a live socket (or delete a regular file). Before binding: nothing there is
// fine; a socket file that refuses connections is stale (a crashed run) and is removed; a
// socket someone listens on, or anything that is not a socket, is refused (TransportError).
IpcBindCheck prepare_ipc_bind(const Address& address);

// The identity of the socket file this process bound, so that at exit it removes its own file
// and never one that replaced it.
using transport_common::FileIdentity;
using transport_common::identify_file;
using transport_common::remove_if_same_file;

} // namespace netprof::zeromq
