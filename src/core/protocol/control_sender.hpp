#pragma once

#include "core/protocol/control_authentication.hpp"
#include "core/protocol/outgoing_message.hpp"

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstdint>

namespace netprof {

// The publisher's control messages (acknowledgements, END, challenges): a header, and a MAC
// under --key-file. Each but the challenge is of its run and carries its end token (wire.hpp,
// "Address proof"); acknowledgements describe the run in their payload.
class ControlSender {
public:
  ControlSender(Endpoint& endpoint, const ControlAuthentication& authentication,
                std::uint64_t run_id, std::uint64_t end_token,
                const wire::RunDescription& description)
      : m_endpoint(endpoint), m_authentication(authentication), m_run_id(run_id),
        m_end_token(end_token), m_message(authentication.tag_room()),
        m_acknowledgement(wire::run_description_size + authentication.tag_room())
  {
    wire::encode_run_description(description, m_acknowledgement.payload());
  }

  // Sent and flushed at once; false if the transport did not take it. `instance`: the tag of
  // the subscriber process addressed (0 for END, which addresses all).
  bool send(wire::MessageKind kind, std::uint64_t sequence, std::uint32_t instance = 0) noexcept
  {
    const bool sent = m_endpoint.send(sealed(kind, sequence, instance)).sent();
    return m_endpoint.flush().sent() && sent;
  }

  // send(), but dealt to one subscriber by the medium (--fanout round-robin dealt by the
  // transport: END must follow that subscriber's share down its own connection).
  bool deal(MessageDealer& dealer, wire::MessageKind kind, std::uint64_t sequence) noexcept
  {
    const bool sent = dealer.deal(sealed(kind, sequence, 0)).sent();
    return m_endpoint.flush().sent() && sent;
  }

  // send(), having first made `sender` a peer (a subscriber whose hello proved its address):
  // as every other peer, it hears this and whatever follows.
  bool adopt_and_send(PeerHandle sender, wire::MessageKind kind, std::uint64_t sequence,
                      std::uint32_t instance) noexcept
  {
    const bool sent =
        m_endpoint.reply(sender, sealed(kind, sequence, instance), PeerFate::adopt).sent.sent();
    return m_endpoint.flush().sent() && sent;
  }

  // To the hello's sender alone, with nothing of the run but the cookie it must echo.
  void challenge(PeerHandle sender, std::uint32_t id, std::uint32_t instance,
                 std::uint64_t cookie) noexcept
  {
    wire::Header header = stamped(wire::MessageKind::challenge, id, instance);
    wire::carry_secret(header, cookie);
    m_endpoint.reply(sender, m_authentication.seal(m_message, header), PeerFate::keep_unadopted);
    m_endpoint.flush();
  }

  // To every peer it was given and every subscriber it has: say hello (a challenge naming no
  // one, which a subscriber given only its own address takes as its publisher's call).
  void invite() noexcept
  {
    m_endpoint.send(m_authentication.seal(m_message, stamped(wire::MessageKind::challenge, 0, 0)));
    m_endpoint.flush();
  }

private:
  // A message of the run, with its end token.
  std::span<const std::byte> sealed(wire::MessageKind kind, std::uint64_t sequence,
                                    std::uint32_t instance) noexcept
  {
    wire::Header header = stamped(kind, sequence, instance);
    header.run_id = m_run_id;
    wire::carry_secret(header, m_end_token);
    OutgoingMessage& message = kind == wire::MessageKind::hello_ack ? m_acknowledgement : m_message;
    return m_authentication.seal(message, header);
  }

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
  const ControlAuthentication& m_authentication;
  const std::uint64_t m_run_id;
  const std::uint64_t m_end_token;
  OutgoingMessage m_message;
  OutgoingMessage m_acknowledgement;
};

} // namespace netprof
