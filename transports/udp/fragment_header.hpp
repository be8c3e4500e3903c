#pragma once

// The UDP transport's own framing for messages split into several datagrams. netprof's header
// ("NPRF") travels inside the message; this one ("NPFG") only in fragments, so a message that
// fits one datagram carries no transport overhead at all.
//
// Layout (fragment_header_size bytes, every integer little-endian):
//   0   4  magic        the bytes "NPFG"
//   4   1  version      fragment_version
//   5   3  reserved     zero (rejected otherwise, so they can carry meaning later)
//   8   4  message_id   per sending socket, incremented per fragmented message
//   12  4  total        length of the whole message, bytes
//   16  4  index        this fragment's position, 0 .. count - 1
//   20  4  count        fragments in the message
//   24  4  offset       where this fragment's payload goes in the message
//   28     payload      the rest of the datagram
//
// Every fragment but the last carries the same number of payload bytes (the sender's fragment
// size); the last carries the rest. decode_fragment() checks a fragment against that rule on
// its own, so fragments that pass can never overlap or leave holes.

#include <cstddef>
#include <cstdint>
#include <span>

namespace netprof::udp {

inline constexpr std::byte fragment_magic[4] = {std::byte{'N'}, std::byte{'P'}, std::byte{'F'},
                                                std::byte{'G'}};
inline constexpr std::uint8_t fragment_version = 1;
inline constexpr std::size_t fragment_header_size = 28;

// IPv4: 65535 minus the 20-byte IP header and the 8-byte UDP header.
inline constexpr std::size_t max_datagram_size = 65507;
// Bounds of a fragment's payload. The lower one bounds how many fragments a message of a given
// size can have, and so the receiver's bookkeeping; senders are held to the same range.
inline constexpr std::size_t min_fragment_payload = 512;
inline constexpr std::size_t max_fragment_payload = max_datagram_size - fragment_header_size;

struct FragmentHeader {
  std::uint32_t message_id = 0;
  std::uint32_t total = 0;
  std::uint32_t index = 0;
  std::uint32_t count = 0;
  std::uint32_t offset = 0;
};

// A fragment that passed every check that needs no other fragment.
struct DecodedFragment {
  FragmentHeader header;
  std::span<const std::byte> payload;
  // The sender's fragment size, implied by this fragment: every fragment of one message must
  // imply the same one.
  std::uint32_t fragment_size = 0;
};

enum class FragmentError {
  none,
  not_a_fragment, // too short for the magic, or another magic
  bad_version,    // our magic, but a version or reserved bytes we do not know
  malformed       // lengths, index or offset that no sender following the rules produces
};

// True when the datagram starts with the fragment magic: the receiver's one test per datagram.
bool has_fragment_magic(std::span<const std::byte> datagram) noexcept;

// Writes fragment_header_size bytes. Precondition: out.size() >= fragment_header_size.
void encode_fragment_header(const FragmentHeader& header, std::span<std::byte> out) noexcept;

// Checks one datagram on its own: magic, version, index < count, a non-empty payload within
// the total, offset == index * fragment size, the last fragment ending the message, fragments
// of at least min_fragment_payload bytes when there are several.
FragmentError decode_fragment(std::span<const std::byte> datagram, DecodedFragment& out) noexcept;

} // namespace netprof::udp
