#pragma once

// TCP's side of a stream endpoint: its listening socket, dialling, TCP_NODELAY and how its
// ends are named.

#include "stream/stream_sockets.hpp"

#include <netinet/in.h>

#include <cstddef>
#include <optional>
#include <string>

namespace netprof::tcp {

struct TcpSettings {
  sockaddr_in publisher{};          // where the publisher listens
  std::optional<sockaddr_in> own{}; // a subscriber's own address, when given
  std::size_t queue_length_bytes = 0;
  bool no_delay = true;
};

class TcpSockets final : public stream::StreamSockets {
public:
  // Sizes a socket's buffers as -q asks, to know what a connection gets before one exists.
  // Throws TransportError when the system refuses.
  explicit TcpSockets(const TcpSettings& settings);

  // The publisher's listening socket, bound and listening, its buffers (inherited by every
  // accepted connection) sized. Throws TransportError naming the address.
  transport_common::UniqueFd listen() override;

  transport_common::UniqueFd dial(int& error) noexcept override;
  void prepare(int fd) noexcept override;
  std::string describe_peer(int fd) const override;
  std::string describe_own_end(int fd) const override;
  std::string dial_hint(int error) const override;

private:
  TcpSettings m_settings;
};

} // namespace netprof::tcp
