// UdpSender's sends of a message larger than one datagram: in fragments, each batch of them to
// every target in turn; a target whose batch did not all go out gets none of the rest.

#include "udp_sender.hpp"

#include <algorithm>

namespace netprof::udp {

SendResult UdpSender::send_fragmented(std::span<const std::byte> message, Targets targets) noexcept
{
  const std::size_t peer_count = m_peers.size();
  if (targets.count == 0) {
    return SendResult::sent;
  }
  const std::uint32_t count = m_fragmenter.count_for(message.size());
  const std::uint32_t id = m_next_message_id++;
  std::fill_n(m_peer_abandoned.get(), peer_count, false);
  std::size_t abandoned = 0;
  Progress progress;
  for (std::uint32_t first = 0; first < count && abandoned < targets.count;) {
    const std::size_t prepared = m_fragmenter.prepare(message, id, first);
    for (std::size_t turn = 0; turn < targets.count; ++turn) {
      const std::size_t peer = (targets.first + turn) % peer_count;
      if (m_peer_abandoned[peer]) {
        continue;
      }
      for (std::size_t i = 0; i < prepared; ++i) {
        m_fragment_headers[i].msg_hdr.msg_name = m_peers.address(peer);
      }
      if (push(m_fragment_headers.get(), prepared, progress) < prepared) {
        // The rest of this message would arrive torn anyway: the receiver drops it whole.
        m_peer_abandoned[peer] = true;
        ++abandoned;
      }
    }
    first += static_cast<std::uint32_t>(prepared);
  }
  return progress.result();
}

} // namespace netprof::udp
