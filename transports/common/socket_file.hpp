#pragma once

// The file-system side of a Unix-domain socket that netprof binds (ZeroMQ's ipc://, uds): what
// may be found at its path before binding, a name for a fresh one, and removing only our own
// file at the end.

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace netprof::transport_common {

// Longest socket path: sockaddr_un.sun_path holds 108 bytes with the terminating zero (an
// abstract name has a zero byte in front instead).
inline constexpr std::size_t max_socket_path = 107;

struct SocketFileRules {
  // How messages name the socket: "ZeroMQ ipc:///tmp/x.ipc", "uds /tmp/x.sock".
  std::string_view what;
  // The socket type binding will use; a live socket of another type there is in use all the
  // same.
  int socket_type = 0;
  // A socket file of another user is refused even where this process could remove it (root).
  bool refuse_other_owners = false;
};

// What binding found at the path.
struct SocketFileCheck {
  bool removed_stale = false; // a socket file nobody listens on was removed
};

// Before binding a socket file at `path`: nothing there is fine; a socket file that refuses
// connections is stale (a crashed run) and is removed; a socket someone listens on, anything
// that is not a socket, or (with refuse_other_owners) another user's socket file is refused
// with TransportError naming rules.what.
SocketFileCheck prepare_socket_file(const std::string& path, const SocketFileRules& rules);

// $TMPDIR (or /tmp) / <stem>-<pid>-<random>-<role><extension>, within max_socket_path.
std::string temporary_socket_path(std::string_view stem, std::string_view role,
                                  std::string_view extension);

// The identity of the socket file this process bound, so that at exit it removes its own file
// and never one that replaced it.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool known = false;
};
FileIdentity identify_file(const std::string& path) noexcept;
void remove_if_same_file(const std::string& path, const FileIdentity& identity) noexcept;

} // namespace netprof::transport_common
