#pragma once

// The opening every role makes of what it receives, written once for both: decode the header,
// let the role pass over traffic that is none of its business, then check the MAC of a
// control message (--key-file). Only a message opened here is read further; the role counts
// a failed opening in its Refusals.

#include "core/protocol/control_authentication.hpp"

#include <netprof/wire.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace netprof {

enum class Opening {
  readable,        // header decoded and, for a control message, its MAC checked
  undecodable,     // no header of ours
  unauthenticated, // a control message without a valid MAC, or one with a MAC we cannot check
  passed_over,     // decoded, but not addressed to this role: neither read nor refused
};

// A received message once opened: its header, and its bytes without the MAC.
struct OpenedMessage {
  wire::Header header;
  std::span<const std::byte> bytes;

  std::span<const std::byte> payload() const noexcept { return bytes.subspan(wire::header_size); }
};

// What a role refused at the opening, and later for reasons of its own (`rejected`).
struct Refusals {
  std::uint64_t rejected = 0;        // over the whole process
  std::uint64_t unauthenticated = 0; // control messages without a valid MAC (--key-file)

  void count(Opening opening) noexcept
  {
    if (opening == Opening::undecodable || opening == Opening::unauthenticated)
      ++rejected;
    if (opening == Opening::unauthenticated)
      ++unauthenticated;
  }
};

class MessageOpener {
public:
  // Who reads what this opener opens. A subscriber passes over the back channel (another
  // subscriber's messages, or its own looped back on a shared medium) before the MAC is
  // checked: those are not refused, whatever key their sender holds. A publisher reads
  // everything, its own traffic included, and sorts it out itself.
  enum class Reader { publisher, subscriber };

  MessageOpener(const ControlAuthentication& authentication, Reader reader) noexcept
      : m_authentication(authentication), m_reader(reader)
  {
  }

  // Inline: every data message and echo passes here.
  Opening open(std::span<const std::byte> received, OpenedMessage& opened) const noexcept
  {
    opened.bytes = received;
    if (wire::decode_header(received, opened.header) != wire::DecodeError::none)
      return Opening::undecodable;
    if (m_reader == Reader::subscriber && opened.header.sender_id != 0)
      return Opening::passed_over;
    if (!m_authentication.open(opened.header, opened.bytes))
      return Opening::unauthenticated;
    return Opening::readable;
  }

private:
  const ControlAuthentication& m_authentication;
  const Reader m_reader;
};

} // namespace netprof
