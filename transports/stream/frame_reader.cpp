#include "frame_reader.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace netprof::stream {

namespace {

constexpr std::byte magic_n{'n'};
constexpr std::byte magic_p{'p'};
// Below this much free room at the end, what is buffered moves to the front before a recv, so
// that small frames are read many at a time.
constexpr std::size_t least_room = 4096;

std::uint32_t length_of(const std::byte* header) noexcept
{
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    length |= static_cast<std::uint32_t>(header[4 + i]) << (8 * i);
  }
  return length;
}

} // namespace

FrameHeader encode_frame_header(std::uint32_t length) noexcept
{
  FrameHeader header{magic_n, magic_p, std::byte{0}, std::byte{0}};
  for (std::size_t i = 0; i < 4; ++i) {
    header[4 + i] = static_cast<std::byte>((length >> (8 * i)) & 0xff);
  }
  return header;
}

FrameReader::FrameReader(std::size_t limit, std::size_t capacity)
    : m_buffer(std::max(capacity, frame_header_size)), m_limit(limit)
{
}

bool FrameReader::check_header() noexcept
{
  const std::byte* header = m_buffer.data() + m_begin;
  if (header[0] != magic_n || header[1] != magic_p || header[2] != std::byte{0} ||
      header[3] != std::byte{0}) {
    m_error = FrameError::not_a_frame;
    return false;
  }
  const std::uint32_t length = length_of(header);
  if (length > m_limit) {
    m_error = FrameError::too_large;
    m_announced = length;
    return false;
  }
  return true;
}

std::optional<std::size_t> FrameReader::partial_length() const noexcept
{
  if (m_end - m_begin < frame_header_size) {
    return std::nullopt;
  }
  return length_of(m_buffer.data() + m_begin);
}

std::optional<std::span<const std::byte>> FrameReader::next() noexcept
{
  if (m_error != FrameError::none || m_end - m_begin < frame_header_size || !check_header()) {
    return std::nullopt;
  }
  const std::size_t length = length_of(m_buffer.data() + m_begin);
  if (m_end - m_begin < frame_header_size + length) {
    return std::nullopt;
  }
  const std::span<const std::byte> message(m_buffer.data() + m_begin + frame_header_size, length);
  m_begin += frame_header_size + length;
  return message;
}

std::span<std::byte> FrameReader::space() noexcept
{
  if (m_error != FrameError::none) {
    return {};
  }
  if (m_begin == m_end) {
    m_begin = m_end = 0;
  }
  // The frame in progress, whole: its header when that is all that is known, else the message.
  std::size_t needed = frame_header_size;
  if (m_end - m_begin >= frame_header_size) {
    if (!check_header()) {
      return {};
    }
    needed += length_of(m_buffer.data() + m_begin);
  }
  if (m_buffer.size() - m_begin < needed || (m_begin > 0 && m_buffer.size() - m_end < least_room)) {
    std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
    m_end -= m_begin;
    m_begin = 0;
  }
  if (m_buffer.size() < needed) {
    try {
      m_buffer.resize(needed); // a longer message than any before: once, then never again
    } catch (const std::bad_alloc&) {
      m_error = FrameError::out_of_memory;
      return {};
    }
  }
  return {m_buffer.data() + m_end, m_buffer.size() - m_end};
}

} // namespace netprof::stream
