#pragma once

// The Unix-domain side of a stream endpoint: the publisher's listening socket and its file
// (0600, a stale one replaced, removed at the end), dialling, and how its ends are named.

#include "uds_address.hpp"

#include "common/socket_file.hpp"
#include "stream/stream_sockets.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace netprof::uds {

struct UdsSettings {
  UdsAddress address;
  int socket_type = SOCK_SEQPACKET; // or SOCK_STREAM
  std::size_t queue_length_bytes = 0;
};

class UdsSockets final : public stream::StreamSockets {
public:
  // Sizes a socket's buffers as -q asks, to know what a connection gets before one exists.
  // Throws TransportError when the system refuses.
  explicit UdsSockets(const UdsSettings& settings);
  // Removes the socket file listen() made, if it is still the one it made.
  ~UdsSockets() override;

  // The publisher's listening socket. Its file is made 0600 (stricter if the umask says so)
  // without touching the process's umask: the socket's own mode, set before bind, is what the
  // file gets. Throws TransportError naming the address: in use, not a socket, another user's,
  // no such directory.
  transport_common::UniqueFd listen() override;

  transport_common::UniqueFd dial(int& error) noexcept override;
  // Sizes an accepted connection's buffers: unlike TCP's, they are not the listener's.
  void prepare(int fd) noexcept override;
  std::string describe_peer(int fd) const override;
  std::string describe_own_end(int fd) const override;
  std::string dial_hint(int error) const override;

private:
  UdsSettings m_settings;
  std::string m_what; // "uds /tmp/x.sock", as messages name it
  transport_common::FileIdentity m_own_file;
};

// Sets a socket's buffers as -q asks; false when the kernel refused (what it grants is noted
// by the probe that UdsSockets' constructor sized).
bool size_buffers(int fd, std::size_t queue_length_bytes) noexcept;

} // namespace netprof::uds
