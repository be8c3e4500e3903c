#include "udp_endpoint.hpp"

#include "peer_handle.hpp"
#include "socket_address.hpp"

#include <random>
#include <string>
#include <system_error>

namespace netprof::udp {

namespace {

SenderSettings sender_settings(const UdpTuning& tuning, const BufferSizes& buffers)
{
  SenderSettings settings;
  settings.max_message_size = largest_message(tuning, buffers.granted_receive);
  settings.fragment_size = tuning.fragment_size;
  settings.batch = tuning.batch;
  settings.gso = tuning.gso;
  // A random start, so that a sender restarted on the same port does not complete the partial
  // messages its predecessor left behind in a receiver.
  settings.first_message_id = std::random_device{}();
  return settings;
}

ReassemblyLimits reassembly_limits(const UdpTuning& tuning)
{
  return ReassemblyLimits{largest_reassembled_message(tuning), tuning.reassembly_slots,
                          tuning.reassembly_timeout};
}

// One line saying what the reassembler dropped, or nothing when it dropped nothing.
std::string reassembly_note(const ReassemblyCounters& counters, std::uint64_t truncated)
{
  std::string dropped;
  const auto add = [&](std::uint64_t count, const char* what) {
    if (count > 0) {
      dropped += (dropped.empty() ? "" : ", ") + std::to_string(count) + " " + what;
    }
  };
  add(counters.malformed, "malformed");
  add(counters.too_large, "too large");
  add(counters.inconsistent, "inconsistent");
  add(counters.duplicates, "duplicate");
  add(counters.late, "late");
  add(counters.out_of_memory, "out of memory");
  add(truncated, "truncated");
  std::string evicted;
  if (counters.evicted_for_room > 0 || counters.evicted_stale > 0) {
    evicted = std::to_string(counters.evicted_for_room) + " partial messages evicted for room, " +
              std::to_string(counters.evicted_stale) + " after --reassembly-timeout";
  }
  if (dropped.empty() && evicted.empty()) {
    return {};
  }
  return "reassembly: " + (dropped.empty() ? "" : "fragments dropped: " + dropped) +
         (!dropped.empty() && !evicted.empty() ? "; " : "") + evicted;
}

} // namespace

UdpEndpoint::UdpEndpoint(UdpSockets sockets, const UdpTuning& tuning,
                         std::size_t queue_length_bytes)
    : m_sockets(std::move(sockets)),
      m_buffers(
          size_socket_buffers(m_sockets.send_fd(), m_sockets.receive.get(), queue_length_bytes)),
      m_sender(m_sockets.send_fd(), m_peers, sender_settings(tuning, m_buffers)),
      m_receiver(m_sockets.receive.get(), reassembly_limits(tuning), m_sockets.own_source)
{
  for (const sockaddr_in& peer : m_sockets.peers) {
    if (!m_peers.add(peer)) {
      ++m_ignored_peers;
    }
  }
  route_single_peer();
}

void UdpEndpoint::route_single_peer() noexcept
{
  if (m_peers.size() > 1 && m_twin.valid()) {
    m_receiver.lobby_has_peers(); // the twin still takes the first peer's datagrams
  }
  if (m_peers.size() != 1 || m_sockets.single_peer == SinglePeerRoute::unconnected) {
    return;
  }
  try {
    if (m_sockets.single_peer == SinglePeerRoute::connect_socket) {
      connect_socket(m_sockets.receive.get(), m_peers[0]);
      m_receiver.socket_connected_to(m_peers[0]);
      m_sender.send_single_peer_through(m_sockets.receive.get());
      m_route_note = "socket connected to its one peer " + to_string(m_peers[0]) +
                     ": datagrams from anyone else are dropped by the kernel";
    } else if (!m_twin.valid()) {
      m_twin = open_connected_twin(m_sockets.receive.get(), m_peers[0]);
      // As large as the first socket's: the twin carries that peer's traffic both ways.
      if (m_buffers.requested > 0) {
        size_socket_buffers(m_twin.get(), m_twin.get(), m_buffers.requested);
      }
      m_receiver.add_peer_socket(m_twin.get(), m_peers[0]);
      m_sender.send_single_peer_through(m_twin.get());
    }
  } catch (const std::exception& error) {
    m_sender.send_single_peer_through(-1);
    try {
      m_route_note = std::string("sending through an unconnected socket (slower): ") + error.what();
    } catch (...) {
    }
  }
}

ReplyOutcome UdpEndpoint::reply(PeerHandle sender, std::span<const std::byte> message,
                                PeerFate fate) noexcept
{
  if (!m_sockets.learns_peers) {
    return {send(message), fate == PeerFate::adopt};
  }
  if (fate == PeerFate::keep_unadopted) {
    return {answer_alone(sender, message), false};
  }
  const bool adopted = adopt(sender);
  return {send(message), adopted};
}

SendOutcome UdpEndpoint::send_to(PeerHandle peer, std::span<const std::byte> message) noexcept
{
  if (!m_sockets.learns_peers) {
    return send(message); // a shared medium reaches everyone anyway
  }
  const std::optional<sockaddr_in> address = peer_address(peer);
  const std::optional<std::size_t> index = address ? m_peers.find(*address) : std::nullopt;
  if (!index) {
    return {}; // not adopted (or gone): nobody hears it, as for a peer send() skipped
  }
  m_dealt = true;
  return m_sender.send_to(*index, message);
}

bool UdpEndpoint::adopt(PeerHandle sender) noexcept
{
  const std::optional<sockaddr_in> address = peer_address(sender);
  if (!address) {
    return false;
  }
  if (!m_peers.add(*address)) {
    ++m_ignored_peers;
    return false;
  }
  route_single_peer();
  return true;
}

SendOutcome UdpEndpoint::answer_alone(PeerHandle sender,
                                      std::span<const std::byte> message) noexcept
{
  const std::optional<sockaddr_in> address = peer_address(sender);
  if (!address || message.size() > m_sender.max_message_size()) {
    return {SendResult::failed, SendCause::error};
  }
  // Always from the bound socket: a subscriber's socket is connected to that address.
  const ssize_t sent = sendto(m_sockets.receive.get(), message.data(), message.size(), MSG_DONTWAIT,
                              reinterpret_cast<const sockaddr*>(&*address), sizeof *address);
  // Not retried: the subscriber says hello again until it is answered.
  if (sent >= 0) {
    return {};
  }
  return {SendResult::failed, send_cause_of_errno(errno)};
}

EndpointFacts UdpEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = m_sockets.transport;
  facts.local_addresses = m_sockets.local_addresses;
  for (std::size_t i = 0; i < m_peers.size(); ++i) {
    facts.peer_addresses.push_back(to_string(m_peers[i]));
  }
  facts.max_message_size = m_sender.max_message_size();
  facts.sends_datagrams = true;
  facts.size_hint = "a larger -q raises it up to 16 MiB, or give --udp-max-message";
  facts.requested_buffer_bytes = m_buffers.requested;
  facts.granted_send_buffer_bytes = m_buffers.granted_send;
  facts.granted_receive_buffer_bytes = m_buffers.granted_receive;
  facts.capabilities.addresses_peers_one_by_one = m_sockets.learns_peers;
  facts.capabilities.shared_medium = !m_sockets.learns_peers;
  facts.notes = m_sockets.notes;
  facts.notes.insert(facts.notes.end(), m_buffers.notes.begin(), m_buffers.notes.end());
  if (!m_route_note.empty()) {
    facts.notes.push_back(m_route_note);
  }
  if (m_dealt && m_sender.batch() > 1) {
    facts.notes.push_back("--udp-batch " + std::to_string(m_sender.batch()) +
                          ": messages dealt to one subscriber (--fanout round-robin) went one "
                          "datagram per send, unbatched");
  }
  if (m_ignored_peers > 0) {
    facts.notes.push_back(std::to_string(m_ignored_peers) + " peers ignored beyond the limit of " +
                          std::to_string(PeerTable::capacity));
  }
  if (const int error = m_sender.gso_refused_error(); error != 0) {
    facts.notes.push_back("UDP GSO refused by the kernel (" +
                          std::generic_category().message(error) +
                          "): batches went as one sendmmsg entry per message");
  }
  if (const std::uint64_t refusals = m_receiver.refusals() + m_sender.refusals(); refusals > 0) {
    // Loopback and most hosts answer a datagram to a closed port with ICMP port unreachable.
    const std::string where = m_peers.size() == 0 ? std::string("its peer") : to_string(m_peers[0]);
    facts.diagnoses.push_back("the kernel reported the port closed: nothing listened at " + where +
                              " (ECONNREFUSED, " + std::to_string(refusals) +
                              " times): was the peer there running, or had it already ended?");
  }
  // Read at the end of a run, this says what the transport dropped on its own.
  std::string reassembly = reassembly_note(m_receiver.reassembly(), m_receiver.truncated());
  if (!reassembly.empty()) {
    facts.notes.push_back(std::move(reassembly));
  }
  return facts;
}

} // namespace netprof::udp
