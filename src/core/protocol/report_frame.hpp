#pragma once

// How a publisher's report travels to publisher 0 under --publishers P run by hand
// (process/report_relay.hpp): publisher 0 answers each connection with a nonce, and the
// publisher sends one frame:
//
//   "NPRF" | version u8 (1) | flags u8 (1: a MAC follows) | 2 zero bytes | id u32 | length u32 |
//   length bytes of JSON | MAC (16 B, --key-file only)
//
// little-endian. The MAC (keyed BLAKE2b, as the control messages') covers the nonce and
// everything before it, so a frame recorded from one run cannot be replayed into another.

#include "core/protocol/control_authentication.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace netprof {

inline constexpr std::size_t report_nonce_size = 16;
inline constexpr std::size_t report_frame_header_size = 16;
// A publisher's JSON report is a few KB, more with --interval; anything near this is not one.
inline constexpr std::size_t max_relayed_report_size = std::size_t{4} << 20;

using ReportNonce = std::array<std::byte, report_nonce_size>;

std::vector<std::byte> encode_report_frame(const ReportNonce& nonce, std::uint32_t id,
                                           const std::string& json,
                                           const ControlAuthentication& authentication);

struct ReportFrameParse {
  enum class State { incomplete, complete, refused };
  State state = State::incomplete;
  std::uint32_t id = 0;
  std::string json;
  std::string refusal; // why, when refused: one phrase
  // Bytes the frame takes (complete), or at least needs (incomplete, once its header is in).
  std::size_t frame_size = report_frame_header_size;
};

// Reads a frame from the bytes received so far: incomplete until all of it is in; refused when
// it cannot be a report of publisher 1 to `publishers` - 1 of this run (wrong magic or version,
// another id, too long, a missing or wrong MAC, a MAC without a key). The JSON is not parsed.
ReportFrameParse parse_report_frame(std::span<const std::byte> received, const ReportNonce& nonce,
                                    std::uint32_t publishers,
                                    const ControlAuthentication& authentication);

} // namespace netprof
