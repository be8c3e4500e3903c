#pragma once

// The frame around each message on the publisher's queue, which every subscriber writes to: 8
// bytes naming the sender, so the publisher can answer it (a challenge) and adopt it (open its
// queue). Little-endian: "npmq", then the subscriber's id. The publisher's messages to a
// subscriber's own queue go unframed: only the publisher writes there.

#include <netprof/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace netprof::mq {

inline constexpr std::size_t frame_bytes = 8;
inline constexpr std::uint32_t frame_magic = 0x716d706e; // "npmq"

inline void store_le32(std::byte* out, std::uint32_t value) noexcept
{
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

inline std::uint32_t load_le32(const std::byte* in) noexcept
{
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  return value;
}

inline void write_frame(std::byte* out, std::uint32_t sender) noexcept
{
  store_le32(out, frame_magic);
  store_le32(out + 4, sender);
}

// The sender a frame names, or 0 when it is not a frame of ours (too short, wrong magic, id 0:
// no subscriber has it).
inline std::uint32_t frame_sender(std::span<const std::byte> frame) noexcept
{
  if (frame.size() < frame_bytes || load_le32(frame.data()) != frame_magic)
    return 0;
  return load_le32(frame.data() + 4);
}

// A subscriber's id as a PeerHandle: a bit above the id, so no handle is "none".
inline constexpr std::uint64_t handle_tag = std::uint64_t{1} << 32;

inline PeerHandle handle_of(std::uint32_t sender) noexcept
{
  return PeerHandle{handle_tag | sender};
}

inline std::optional<std::uint32_t> sender_of(PeerHandle handle) noexcept
{
  if ((handle.value >> 32) != 1 || static_cast<std::uint32_t>(handle.value) == 0)
    return std::nullopt;
  return static_cast<std::uint32_t>(handle.value);
}

} // namespace netprof::mq
