#pragma once

// The udp_reassembler fuzz target's input: a script of datagrams for one Reassembler, so the
// fuzzer can reorder, drop, duplicate and interleave fragments and move the clock, not only
// corrupt bytes. Every field is little-endian; see fuzz_input.hpp for what a short input reads.
//
//   u8 slots (mod 9)  u16 max_message_size  u8 timeout (ms, minus 1)
//   then operations until the input ends, each  u8 kind (mod 4)  u8 clock advance (ms)  ...
//   0 fragment     u8 source (mod 4), u8 message id (mod 8), u16 total (0 reads as 1),
//                  u16 fragment size (512 + value mod 4096), u16 index (mod the count):
//                  a well-formed fragment of that message, framed as the sender frames it
//   1 free header  u8 source (mod 4), u32 message id, total, index, count, offset,
//                  u16 payload length: a fragment whose header fields are anything
//   2 raw          u16 length, then that many bytes, sent after the fragment magic
//   3 expire       nothing more: expire() with no datagram, as when nothing arrives
//
// The payloads of kinds 0 and 1 are pattern_byte(pattern_seed(source, message id, total),
// position in the message), so a delivered message can be checked byte for byte: a byte from
// another message, from a stale buffer or from the wrong offset breaks the pattern. Raw datagrams
// come from a source of their own, whose messages are checked only for their framing.

#include "fuzz_input.hpp"

#include "udp/fragment_header.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace netprof::fuzz {

inline constexpr std::uint64_t raw_source = 99;
inline constexpr std::uint32_t structured_sources = 4;
inline constexpr std::uint32_t fragment_op_ids = 8;
inline constexpr std::uint32_t fragment_size_range = 4096;

enum class OpKind : std::uint8_t { fragment = 0, free_header = 1, raw = 2, expire = 3 };
inline constexpr std::uint8_t op_kinds = 4;

struct ScriptLimits {
  std::size_t slots = 0;
  std::size_t max_message_size = 0;
  std::uint32_t timeout_ms = 1;
};

// One fragment of a message the way the UDP sender frames it (Fragmenter's rule: every
// fragment but the last carries fragment_size bytes).
struct SenderFragment {
  std::uint64_t source = 1;
  udp::FragmentHeader header;
  std::size_t length = 0; // payload bytes
};

// One multiply per byte (it is computed for every byte sent and checked), yet every message
// and position gives a different sequence: the top byte of a Weyl sequence seeded per message.
inline std::uint64_t pattern_seed(std::uint64_t source, std::uint32_t message_id,
                                  std::uint32_t total) noexcept
{
  return source * 0xD1B54A32D192ED03u ^
         (std::uint64_t{message_id} << 32 | total) * 0xAEF17502108EF2D9u;
}

inline std::byte pattern_byte(std::uint64_t seed, std::uint64_t position) noexcept
{
  return static_cast<std::byte>(((seed + position) * 0x9E3779B97F4A7C15u) >> 56);
}

inline ScriptLimits read_limits(FuzzInput& in) noexcept
{
  ScriptLimits limits;
  limits.slots = in.u8() % 9;
  limits.max_message_size = in.u16();
  limits.timeout_ms = std::uint32_t{in.u8()} + 1;
  return limits;
}

inline std::uint64_t read_source(FuzzInput& in) noexcept
{
  return 1 + in.u8() % structured_sources;
}

inline SenderFragment read_fragment(FuzzInput& in) noexcept
{
  SenderFragment out;
  out.source = read_source(in);
  out.header.message_id = in.u8() % fragment_op_ids;
  const std::uint32_t total = std::max<std::uint32_t>(in.u16(), 1);
  const std::uint32_t fragment_size =
      static_cast<std::uint32_t>(udp::min_fragment_payload) + in.u16() % fragment_size_range;
  const std::uint32_t count = (total + fragment_size - 1) / fragment_size;
  out.header.total = total;
  out.header.count = count;
  out.header.index = in.u16() % count;
  out.header.offset = out.header.index * fragment_size;
  out.length = std::min(fragment_size, total - out.header.offset);
  return out;
}

inline SenderFragment read_free_header(FuzzInput& in) noexcept
{
  SenderFragment out;
  out.source = read_source(in);
  out.header.message_id = in.u32();
  out.header.total = in.u32();
  out.header.index = in.u32();
  out.header.count = in.u32();
  out.header.offset = in.u32();
  out.length = std::min<std::size_t>(in.u16(), udp::max_fragment_payload);
  return out;
}

// Writes scripts in the format above, for the seed corpus.
class ScriptWriter {
public:
  ScriptWriter(std::uint8_t slots, std::uint16_t max_message_size, std::uint8_t timeout_ms)
  {
    m_out.u8(slots);
    m_out.u16(max_message_size);
    m_out.u8(static_cast<std::uint8_t>(timeout_ms - 1));
  }

  // source 1 .. 4; fragment_size 512 .. 4607.
  void fragment(std::uint8_t source, std::uint8_t message_id, std::uint16_t total,
                std::uint16_t fragment_size, std::uint16_t index, std::uint8_t advance_ms = 0)
  {
    begin(OpKind::fragment, advance_ms);
    m_out.u8(static_cast<std::uint8_t>(source - 1));
    m_out.u8(message_id);
    m_out.u16(total);
    m_out.u16(static_cast<std::uint16_t>(fragment_size - udp::min_fragment_payload));
    m_out.u16(index);
  }

  void free_header(std::uint8_t source, const udp::FragmentHeader& header, std::uint16_t length,
                   std::uint8_t advance_ms = 0)
  {
    begin(OpKind::free_header, advance_ms);
    m_out.u8(static_cast<std::uint8_t>(source - 1));
    m_out.u32(header.message_id);
    m_out.u32(header.total);
    m_out.u32(header.index);
    m_out.u32(header.count);
    m_out.u32(header.offset);
    m_out.u16(length);
  }

  // `after_magic`: the datagram without its first four bytes (the fragment magic).
  void raw(std::span<const std::byte> after_magic, std::uint8_t advance_ms = 0)
  {
    begin(OpKind::raw, advance_ms);
    m_out.u16(static_cast<std::uint16_t>(after_magic.size()));
    m_out.bytes(after_magic);
  }

  void expire(std::uint8_t advance_ms) { begin(OpKind::expire, advance_ms); }

  const std::vector<std::byte>& data() const noexcept { return m_out.data(); }

private:
  void begin(OpKind kind, std::uint8_t advance_ms)
  {
    m_out.u8(static_cast<std::uint8_t>(kind));
    m_out.u8(advance_ms);
  }

  FuzzOutput m_out;
};

} // namespace netprof::fuzz
