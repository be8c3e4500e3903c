#include "fragment_header.hpp"

#include <algorithm>

namespace netprof::udp {

namespace {

void put_u32(std::span<std::byte> out, std::size_t at, std::uint32_t value) noexcept
{
  for (std::size_t i = 0; i < 4; ++i) {
    out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xffU);
  }
}

std::uint32_t get_u32(std::span<const std::byte> in, std::size_t at) noexcept
{
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value |= static_cast<std::uint32_t>(in[at + i]) << (8 * i);
  }
  return value;
}

bool fits_payload_range(std::uint64_t fragment_size) noexcept
{
  return fragment_size >= min_fragment_payload && fragment_size <= max_fragment_payload;
}

} // namespace

bool has_fragment_magic(std::span<const std::byte> datagram) noexcept
{
  return datagram.size() >= sizeof fragment_magic &&
         std::equal(std::begin(fragment_magic), std::end(fragment_magic), datagram.begin());
}

void encode_fragment_header(const FragmentHeader& header, std::span<std::byte> out) noexcept
{
  std::copy(std::begin(fragment_magic), std::end(fragment_magic), out.begin());
  out[4] = static_cast<std::byte>(fragment_version);
  out[5] = out[6] = out[7] = std::byte{0};
  put_u32(out, 8, header.message_id);
  put_u32(out, 12, header.total);
  put_u32(out, 16, header.index);
  put_u32(out, 20, header.count);
  put_u32(out, 24, header.offset);
}

FragmentError decode_fragment(std::span<const std::byte> datagram, DecodedFragment& out) noexcept
{
  if (!has_fragment_magic(datagram)) {
    return FragmentError::not_a_fragment;
  }
  if (datagram.size() < fragment_header_size) {
    return FragmentError::malformed;
  }
  if (static_cast<std::uint8_t>(datagram[4]) != fragment_version || datagram[5] != std::byte{0} ||
      datagram[6] != std::byte{0} || datagram[7] != std::byte{0}) {
    return FragmentError::bad_version;
  }
  FragmentHeader header;
  header.message_id = get_u32(datagram, 8);
  header.total = get_u32(datagram, 12);
  header.index = get_u32(datagram, 16);
  header.count = get_u32(datagram, 20);
  header.offset = get_u32(datagram, 24);
  const std::span<const std::byte> payload = datagram.subspan(fragment_header_size);

  // 64-bit arithmetic throughout: no product or sum of two u32 fields can wrap.
  const std::uint64_t length = payload.size();
  const std::uint64_t total = header.total;
  const std::uint64_t count = header.count;
  const std::uint64_t offset = header.offset;
  if (length == 0 || count == 0 || header.index >= header.count || offset + length > total) {
    return FragmentError::malformed;
  }

  std::uint64_t fragment_size = 0;
  if (count == 1) {
    // A message that needed no splitting but began with our magic, framed so that it cannot
    // be mistaken for a fragment.
    if (offset != 0 || length != total) {
      return FragmentError::malformed;
    }
    fragment_size = length;
  } else if (header.index + 1 < header.count) {
    fragment_size = length;
    if (!fits_payload_range(fragment_size) || offset != header.index * fragment_size ||
        total <= (count - 1) * fragment_size || total > count * fragment_size) {
      return FragmentError::malformed;
    }
  } else {
    // The last fragment implies the size of the others through its offset.
    if (offset + length != total || offset % (count - 1) != 0) {
      return FragmentError::malformed;
    }
    fragment_size = offset / (count - 1);
    if (!fits_payload_range(fragment_size) || length > fragment_size) {
      return FragmentError::malformed;
    }
  }
  out.header = header;
  out.payload = payload;
  out.fragment_size = static_cast<std::uint32_t>(fragment_size);
  return FragmentError::none;
}

} // namespace netprof::udp
