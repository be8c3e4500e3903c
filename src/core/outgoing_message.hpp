#pragma once

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace netprof {

// A message buffer allocated once at setup; the loops only rewrite its header.
class OutgoingMessage {
public:
  explicit OutgoingMessage(std::size_t payload_size) : m_bytes(wire::header_size + payload_size) {}

  std::span<std::byte> payload() noexcept
  {
    return std::span<std::byte>(m_bytes).subspan(wire::header_size);
  }

  // Encodes the header (its payload_length is set from the buffer) and returns the message.
  std::span<const std::byte> with_header(wire::Header header) noexcept
  {
    header.payload_length = static_cast<std::uint32_t>(m_bytes.size() - wire::header_size);
    wire::encode_header(header, m_bytes);
    return m_bytes;
  }

private:
  std::vector<std::byte> m_bytes;
};

// The publisher's control messages (acknowledgements, END): a header of its run, no payload.
class ControlSender {
public:
  ControlSender(Endpoint& endpoint, std::uint64_t run_id) : m_endpoint(endpoint), m_run_id(run_id)
  {
  }

  // Sent and flushed at once; false if the transport did not take it.
  bool send(wire::MessageKind kind, std::uint64_t sequence) noexcept
  {
    wire::Header header;
    header.kind = kind;
    header.run_id = m_run_id;
    header.sequence = sequence;
    const std::int64_t now_ns = to_wire_ns(Clock::now());
    header.intended_ns = now_ns;
    header.sent_ns = now_ns;
    const bool sent = m_endpoint.send(m_message.with_header(header)) == SendResult::sent;
    return m_endpoint.flush() == SendResult::sent && sent;
  }

private:
  Endpoint& m_endpoint;
  const std::uint64_t m_run_id;
  OutgoingMessage m_message{0};
};

} // namespace netprof
