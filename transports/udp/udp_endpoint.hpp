#pragma once

#include "peer_table.hpp"
#include "socket_buffers.hpp"
#include "udp_receiver.hpp"
#include "udp_sender.hpp"
#include "udp_sockets.hpp"
#include "udp_tuning.hpp"

#include <netprof/transport.hpp>

#include <cstddef>
#include <string>

namespace netprof::udp {

// The one endpoint of every UDP mode. The mode's socket-setup strategy (udp_sockets.hpp) hands
// it configured sockets and peers; from there unicast, multicast and broadcast work alike:
// UdpSender sends (fragmenting and batching), UdpReceiver receives (reassembling). Everything
// send() and receive() touch is allocated in the constructor, so the measured loop never
// allocates.
class UdpEndpoint final : public Endpoint, public RoomWaiter, public PeerSender {
public:
  // Sizes the socket buffers to queue_length_bytes when non-zero. Throws TransportError when
  // the system refuses.
  UdpEndpoint(UdpSockets sockets, const UdpTuning& tuning, std::size_t queue_length_bytes);

  SendOutcome send(std::span<const std::byte> message) noexcept override
  {
    return m_sender.send(message);
  }
  SendOutcome flush() noexcept override { return m_sender.flush(); }
  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept override
  {
    return m_receiver.receive(sink, timeout);
  }
  // Unicast answers the handle's address alone, or adopts it; shared media send to everyone,
  // as send() does, and already reach everyone who listens.
  ReplyOutcome reply(PeerHandle sender, std::span<const std::byte> message,
                     PeerFate fate) noexcept override;
  EndpointFacts facts() const override;

  // Unicast: to the one adopted subscriber the handle names (--fanout round-robin), unbatched.
  SendOutcome send_to(PeerHandle peer, std::span<const std::byte> message) noexcept override;

  RoomWait wait_for_room(Nanoseconds timeout) noexcept override
  {
    return m_sender.wait_for_room(timeout);
  }

private:
  // With exactly one peer, sends go over a connected socket (udp_sockets.hpp). A failure only
  // costs speed: it is noted, and sends stay on the unconnected socket.
  void route_single_peer() noexcept;
  bool adopt(PeerHandle sender) noexcept;
  SendOutcome answer_alone(PeerHandle sender, std::span<const std::byte> message) noexcept;

  UdpSockets m_sockets;
  BufferSizes m_buffers;
  PeerTable m_peers;
  std::size_t m_ignored_peers = 0;
  UdpSender m_sender;
  UdpReceiver m_receiver;
  UniqueFd m_twin;
  std::string m_route_note;
  bool m_dealt = false; // send_to was used: --udp-batch did not batch those messages
};

} // namespace netprof::udp
