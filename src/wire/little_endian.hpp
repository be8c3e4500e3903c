#pragma once

// Explicit little-endian stores and loads at byte granularity. Written with shifts so the
// result is the same on any host; GCC and Clang fuse each one into a single (unaligned) move
// on little-endian targets, so decoding stays straight-line.

#include <cstddef>
#include <cstdint>

namespace netprof::wire::detail {

inline void store_u8(std::byte* out, std::uint8_t value) noexcept
{
  out[0] = static_cast<std::byte>(value);
}

inline void store_u16(std::byte* out, std::uint16_t value) noexcept
{
  out[0] = static_cast<std::byte>(value);
  out[1] = static_cast<std::byte>(value >> 8);
}

inline void store_u32(std::byte* out, std::uint32_t value) noexcept
{
  for (int i = 0; i < 4; ++i) {
    out[i] = static_cast<std::byte>(value >> (8 * i));
  }
}

inline void store_u64(std::byte* out, std::uint64_t value) noexcept
{
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<std::byte>(value >> (8 * i));
  }
}

// Two's complement is guaranteed since C++20, so the conversion round-trips exactly.
inline void store_i64(std::byte* out, std::int64_t value) noexcept
{
  store_u64(out, static_cast<std::uint64_t>(value));
}

inline std::uint8_t load_u8(const std::byte* in) noexcept
{
  return std::to_integer<std::uint8_t>(in[0]);
}

inline std::uint16_t load_u16(const std::byte* in) noexcept
{
  return static_cast<std::uint16_t>(std::to_integer<std::uint16_t>(in[0]) |
                                    (std::to_integer<std::uint16_t>(in[1]) << 8));
}

inline std::uint32_t load_u32(const std::byte* in) noexcept
{
  return std::to_integer<std::uint32_t>(in[0]) | (std::to_integer<std::uint32_t>(in[1]) << 8) |
         (std::to_integer<std::uint32_t>(in[2]) << 16) |
         (std::to_integer<std::uint32_t>(in[3]) << 24);
}

inline std::uint64_t load_u64(const std::byte* in) noexcept
{
  return std::to_integer<std::uint64_t>(in[0]) | (std::to_integer<std::uint64_t>(in[1]) << 8) |
         (std::to_integer<std::uint64_t>(in[2]) << 16) |
         (std::to_integer<std::uint64_t>(in[3]) << 24) |
         (std::to_integer<std::uint64_t>(in[4]) << 32) |
         (std::to_integer<std::uint64_t>(in[5]) << 40) |
         (std::to_integer<std::uint64_t>(in[6]) << 48) |
         (std::to_integer<std::uint64_t>(in[7]) << 56);
}

inline std::int64_t load_i64(const std::byte* in) noexcept
{
  return static_cast<std::int64_t>(load_u64(in));
}

} // namespace netprof::wire::detail
