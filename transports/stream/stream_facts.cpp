#include "stream_endpoint.hpp"

#include <system_error>

// What a stream endpoint tells the report: its addresses and buffers, its connections, and
// what it closed and why.

namespace netprof::stream {

namespace {

std::string error_text(int error)
{
  return std::generic_category().message(error);
}

std::string plural(std::uint64_t count, const char* one, const char* many)
{
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

} // namespace

std::vector<std::string> StreamEndpoint::connection_notes() const
{
  std::vector<std::string> notes;
  if (!m_publisher) {
    if (m_connections_made > 1) {
      notes.push_back("connected to the publisher " + std::to_string(m_connections_made) +
                      " times (it closed the connection " +
                      plural(m_closed.by_peer + m_closed.failed, "time", "times") +
                      ": ended or restarted)");
    }
    return notes;
  }
  notes.push_back("connections: " + std::to_string(m_accepted) + " accepted, at most " +
                  std::to_string(m_peak_adopted) + " sent to at once (those the run adopted); " +
                  std::to_string(m_closed.by_peer) + " closed by their peers");
  if (m_closed.hostile() > 0) {
    notes.push_back("closed " + plural(m_closed.hostile(), "connection", "connections") +
                    " that sent what netprof does not read (" + std::to_string(m_closed.mid_frame) +
                    " ended mid-message, " + std::to_string(m_closed.not_a_frame) +
                    " not framed, " + std::to_string(m_closed.too_large) + " too large); " +
                    m_closed.first_hostile);
  }
  if (m_closed.failed > 0) {
    notes.push_back(plural(m_closed.failed, "connection", "connections") +
                    " closed on a socket error (reset by the peer, or no memory)");
  }
  if (m_closed.evicted > 0 || m_closed.refused > 0) {
    notes.push_back("connection slots or descriptors ran out (" + std::to_string(m_slots.size()) +
                    " slots): " + plural(m_closed.evicted, "stranger", "strangers") +
                    " (connections never adopted) closed to make room, " +
                    std::to_string(m_closed.refused) + " new connections refused");
  }
  if (m_accept_errors > 0) {
    notes.push_back(accept_trouble());
  }
  return notes;
}

std::string StreamEndpoint::accept_trouble() const
{
  return "could not accept connections " + plural(m_accept_errors, "time", "times") + ": " +
         error_text(m_accept_error) + (m_accept_error == EMFILE ? " (raise ulimit -n)" : "");
}

std::vector<std::string> StreamEndpoint::diagnoses() const
{
  std::vector<std::string> found;
  if (!m_publisher) {
    if (!m_publisher_fault.empty()) {
      found.push_back(m_publisher_fault);
    } else if (!connected() && m_dials_failed > 0) {
      found.push_back("could not connect to the publisher at " + m_publisher_address + ": " +
                      error_text(m_dial_error) + m_sockets->dial_hint(m_dial_error) + " (" +
                      plural(m_dials_failed, "attempt", "attempts") + ")");
    }
    return found;
  }
  if (m_closed.hostile() > 0) {
    found.push_back("closed " + plural(m_closed.hostile(), "connection", "connections") +
                    " that sent what netprof does not read; " + m_closed.first_hostile);
  }
  if (m_accept_errors > 0) {
    found.push_back(accept_trouble());
  }
  return found;
}

EndpointFacts StreamEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = m_transport;
  if (m_publisher) {
    facts.local_addresses.push_back(m_publisher_address);
    facts.peer_addresses = m_adopted_peers;
    facts.peak_connections = m_peak_adopted;
  } else {
    facts.local_addresses.push_back(m_own_end.empty() ? "(not connected)" : m_own_end);
    facts.peer_addresses.push_back(m_publisher_address);
  }
  facts.max_message_size = m_limits.max_message_size;
  if (m_limits.read_limit < m_limits.max_message_size)
    facts.max_received_message_size = m_limits.read_limit;
  facts.size_hint = m_size_hint;
  const transport_common::BufferSizes& buffers = m_sockets->buffers();
  facts.requested_buffer_bytes = buffers.requested;
  facts.granted_send_buffer_bytes = buffers.granted_send;
  facts.granted_receive_buffer_bytes = buffers.granted_receive;
  facts.capabilities.addresses_peers_one_by_one = m_publisher;
  facts.notes = m_notes;
  facts.notes.insert(facts.notes.end(), buffers.notes.begin(), buffers.notes.end());
  for (std::string& note : connection_notes()) {
    facts.notes.push_back(std::move(note));
  }
  facts.diagnoses = diagnoses();
  return facts;
}

} // namespace netprof::stream
