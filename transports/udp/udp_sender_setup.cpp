// Setting a sender up: every header it will send points into its own buffers from the start,
// so no send fills in more than lengths and addresses.
#include "udp_sender.hpp"

#include "udp_tuning.hpp"

#include <memory>

namespace netprof::udp {

namespace {

void point_at(mmsghdr& header, iovec* iov, std::size_t iov_count) noexcept
{
  header.msg_hdr.msg_namelen = sizeof(sockaddr_in);
  header.msg_hdr.msg_iov = iov;
  header.msg_hdr.msg_iovlen = iov_count;
}

} // namespace

UdpSender::UdpSender(int fd, PeerTable& peers, const SenderSettings& settings)
    : m_fd(fd), m_peers(peers), m_settings(settings), m_next_message_id(settings.first_message_id),
      m_peer_headers(std::make_unique<mmsghdr[]>(PeerTable::capacity)),
      m_fragmenter(settings.fragment_size, max_batch),
      m_fragment_headers(std::make_unique<mmsghdr[]>(max_batch)),
      m_peer_abandoned(std::make_unique<bool[]>(PeerTable::capacity))
{
  for (std::size_t i = 0; i < PeerTable::capacity; ++i) {
    point_at(m_peer_headers[i], &m_single_iov, 1);
    m_peer_headers[i].msg_hdr.msg_name = m_peers.address(i);
  }
  for (std::size_t i = 0; i < max_batch; ++i) {
    point_at(m_fragment_headers[i], m_fragmenter.iovecs() + 2 * i, 2);
  }
  if (settings.batch > 1) {
    // Not value-initialised: a slot is written before it is sent, and pages never written are
    // never committed, so a large fragment size costs address space, not memory.
    m_batch_slot_size = settings.fragment_size;
    m_batch_storage =
        std::make_unique_for_overwrite<std::byte[]>(settings.batch * m_batch_slot_size);
    m_batch_iovs = std::make_unique<iovec[]>(settings.batch);
    for (std::size_t i = 0; i < settings.batch; ++i) {
      m_batch_iovs[i].iov_base = m_batch_storage.get() + i * m_batch_slot_size;
    }
    m_run_headers = std::make_unique<mmsghdr[]>(settings.batch);
    // Value-initialised, so every control buffer starts zeroed as CMSG_* expects.
    m_run_control = std::make_unique<std::byte[]>(settings.batch * run_control_size);
  }
}

} // namespace netprof::udp
