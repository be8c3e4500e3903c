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

// The publisher's control messages (acknowledgements, END, challenges): a header, no payload.
// Each but the challenge is of its run and carries its end token (wire.hpp, "Address proof").
class ControlSender {
public:
  ControlSender(Endpoint& endpoint, std::uint64_t run_id, std::uint64_t end_token)
      : m_endpoint(endpoint), m_run_id(run_id), m_end_token(end_token)
  {
  }

  // Sent and flushed at once; false if the transport did not take it. `instance`: the tag of
  // the subscriber process addressed (0 for END, which addresses all).
  bool send(wire::MessageKind kind, std::uint64_t sequence, std::uint32_t instance = 0) noexcept
  {
    wire::Header header = stamped(kind, sequence, instance);
    header.run_id = m_run_id;
    wire::carry_secret(header, m_end_token);
    const bool sent = m_endpoint.send(m_message.with_header(header)) == SendResult::sent;
    return m_endpoint.flush() == SendResult::sent && sent;
  }

  // To the hello's sender alone, with nothing of the run but the cookie it must echo.
  void challenge(PeerHandle sender, std::uint32_t id, std::uint32_t instance,
                 std::uint64_t cookie) noexcept
  {
    wire::Header header = stamped(wire::MessageKind::challenge, id, instance);
    wire::carry_secret(header, cookie);
    m_endpoint.reply(sender, m_message.with_header(header));
    m_endpoint.flush();
  }

private:
  static wire::Header stamped(wire::MessageKind kind, std::uint64_t sequence,
                              std::uint32_t instance) noexcept
  {
    wire::Header header;
    header.kind = kind;
    header.sequence = sequence;
    header.record_count = instance;
    header.sent_ns = to_wire_ns(Clock::now());
    return header;
  }

  Endpoint& m_endpoint;
  const std::uint64_t m_run_id;
  const std::uint64_t m_end_token;
  OutgoingMessage m_message{0};
};

} // namespace netprof
