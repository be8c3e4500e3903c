#pragma once

// Length framing over a byte stream (TCP, SOCK_STREAM Unix sockets). Each message goes as an
// 8-byte frame header, then the message: 'n', 'p', two zero bytes, and the message's length as
// a 32-bit little-endian number. The magic and the zero bytes catch a peer that does not speak
// it (a port scanner, an HTTP client, a stream out of step) at its first bytes, before any
// length is believed. Socket-free, so it can be tested on its own.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace netprof::stream {

inline constexpr std::size_t frame_header_size = 8;
using FrameHeader = std::array<std::byte, frame_header_size>;

FrameHeader encode_frame_header(std::uint32_t length) noexcept;

enum class FrameError {
  none,
  not_a_frame,  // the header's magic or zero bytes are wrong: not netprof's framing
  too_large,    // the header announces more than the reader's limit
  out_of_memory // growing the buffer for a message within the limit failed
};

// Gathers one connection's bytes and cuts them into messages, in one buffer that recv() fills and
// the sink reads in place. The buffer grows only for a message longer than any before it, never
// beyond the limit, so a steady run never allocates; a frame announcing more than the limit is
// refused before anything is allocated for it, and the reader stops there for good.
class FrameReader {
public:
  FrameReader() = default;
  // `limit`: the longest message accepted; `capacity`: the buffer to start with (at least one
  // frame header). Allocates.
  FrameReader(std::size_t limit, std::size_t capacity);

  // The next whole message, valid until the next call to space(); nothing when it has not all
  // come yet, or once error() is set.
  std::optional<std::span<const std::byte>> next() noexcept;

  // Where recv() may write: after what is buffered, with room for the whole frame in progress
  // (the buffer moves what is left to its front, or grows, to make it). Empty once error() is
  // set.
  std::span<std::byte> space() noexcept;
  void filled(std::size_t bytes) noexcept { m_end += bytes; }

  FrameError error() const noexcept { return m_error; }
  // The length the refused frame announced (FrameError::too_large).
  std::uint64_t announced() const noexcept { return m_announced; }
  std::size_t limit() const noexcept { return m_limit; }
  // Bytes of a message that has not all come: non-zero when a stream ends mid-frame.
  std::size_t partial_bytes() const noexcept { return m_end - m_begin; }
  // The length the frame in progress announced, once its header is in.
  std::optional<std::size_t> partial_length() const noexcept;

private:
  bool check_header() noexcept;

  std::vector<std::byte> m_buffer;
  std::size_t m_begin = 0; // first byte not yet handed out
  std::size_t m_end = 0;   // one past the last byte received
  std::size_t m_limit = 0;
  std::uint64_t m_announced = 0;
  FrameError m_error = FrameError::none;
};

} // namespace netprof::stream
