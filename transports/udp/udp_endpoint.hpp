#pragma once

#include <netprof/transport.hpp>

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <string>
#include <vector>

namespace netprof::udp {

// One bound, non-blocking UDP socket and the peers it sends to. Everything send() and
// receive() touch is allocated in the constructor, so the measured loop never allocates.
class UdpEndpoint final : public Endpoint {
public:
  // IPv4: 65535 minus the 20-byte IP header and the 8-byte UDP header.
  static constexpr std::size_t max_message_size = 65507;
  // A publisher learns subscribers at run time; the bound keeps the peer table preallocated.
  static constexpr std::size_t max_peers = 1024;
  // Datagrams taken per receive(): enough to amortise the syscall, small enough that the
  // core gets control back often.
  static constexpr std::size_t receive_batch = 32;
  static constexpr std::size_t receive_slot_size = 64 * 1024;

  // Binds `own` (no SO_REUSEADDR, so a port in use fails) and sizes the socket buffers to
  // queue_length_bytes when non-zero. Throws TransportError when the system refuses.
  UdpEndpoint(const sockaddr_in& own, const std::vector<sockaddr_in>& peers,
              std::size_t queue_length_bytes);
  ~UdpEndpoint() override;

  UdpEndpoint(const UdpEndpoint&) = delete;
  UdpEndpoint& operator=(const UdpEndpoint&) = delete;

  SendResult send(std::span<const std::byte> message) noexcept override;
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override;
  void add_peer_from_last_message() noexcept override;
  EndpointFacts facts() const override;

private:
  // Receives one batch without blocking: the number of datagrams handed to the sink, or -1
  // on a socket error.
  int drain(MessageSink& sink) noexcept;
  bool add_peer(const sockaddr_in& peer) noexcept;
  void size_buffers(std::size_t queue_length_bytes);

  int m_fd = -1;
  sockaddr_in m_local{};

  // Fixed capacity (max_peers); the send headers point into it, so it never reallocates.
  std::vector<sockaddr_in> m_peers;
  std::size_t m_peer_count = 0;
  std::size_t m_ignored_peers = 0;
  iovec m_send_iov{};
  std::vector<mmsghdr> m_send_headers;

  std::vector<std::byte> m_receive_storage;
  std::vector<iovec> m_receive_iovs;
  std::vector<sockaddr_in> m_receive_sources;
  std::vector<mmsghdr> m_receive_headers;
  sockaddr_in m_last_source{};
  bool m_have_last_source = false;

  std::size_t m_requested_buffer_bytes = 0;
  std::size_t m_granted_send_buffer_bytes = 0;
  std::size_t m_granted_receive_buffer_bytes = 0;
  std::vector<std::string> m_notes;
};

} // namespace netprof::udp
