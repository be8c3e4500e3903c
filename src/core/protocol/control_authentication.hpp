#pragma once

// --key-file: every control message (hello, challenge, hello_ack, END, final counters,
// final_ack) ends with a MAC, keyed BLAKE2b of the whole message before it under a key hashed
// from the shared secret, and is refused without a valid one. Data and echoes carry none:
// they are the measurement, and a MAC would add to what is measured. Without a key, messages
// go as they are, and one that carries a MAC is refused (its sender has a key we lack).

#include "core/protocol/outgoing_message.hpp"

#include <netprof/wire.hpp>

#include <array>
#include <cstddef>
#include <span>

namespace netprof {

class ControlAuthentication {
public:
  static constexpr std::size_t tag_size = 16;

  // An empty secret: no authentication.
  explicit ControlAuthentication(std::span<const std::byte> shared_secret);

  bool enabled() const noexcept { return m_enabled; }
  // Room a control message needs at the end of its payload.
  std::size_t tag_room() const noexcept { return m_enabled ? tag_size : 0; }

  // Encodes `header` into `message`, whose last tag_room() bytes are left for the MAC, and
  // seals it.
  std::span<const std::byte> seal(OutgoingMessage& message, wire::Header header) const noexcept;

  // Whether a received message may be read; on success, `message` loses its MAC. Inline for
  // the usual case, every data message and echo of a run without a key.
  bool open(const wire::Header& header, std::span<const std::byte>& message) const noexcept
  {
    const bool tagged = (header.flags & wire::flags::authenticated) != 0;
    if (!m_enabled || header.kind == wire::MessageKind::data ||
        header.kind == wire::MessageKind::echo)
      return !tagged;
    return tagged && open_control(message);
  }

  // The MAC of bytes outside the wire protocol (a publisher's report to publisher 0,
  // report_frame.hpp), and its check. Only when enabled().
  std::array<std::byte, tag_size> tag_of(std::span<const std::byte> covered) const noexcept;
  bool verify(std::span<const std::byte> covered, std::span<const std::byte> tag) const noexcept;

private:
  bool open_control(std::span<const std::byte>& message) const noexcept;
  void mac(std::span<const std::byte> covered, std::byte* tag) const noexcept;

  bool m_enabled = false;
  std::array<unsigned char, 32> m_key{};
};

} // namespace netprof
