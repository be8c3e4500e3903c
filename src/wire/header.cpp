#include "little_endian.hpp"

#include <netprof/enum_names.hpp>
#include <netprof/wire.hpp>

namespace netprof::wire {

namespace {

// Field offsets, the single source of truth for the layout documented in wire.hpp.
namespace offset {
// The layout reads as one table, in wire order.
// clang-format off
enum : std::size_t {
  magic = 0, version = 4, kind = 5, flags = 6, sender_id = 8, run_id = 12, sequence = 20,
  intended_ns = 28, sent_ns = 36, payload_length = 44, record_count = 48, end = 52
};
// clang-format on
} // namespace offset

static_assert(offset::end == header_size, "wire.hpp layout and header_size disagree");

inline constexpr std::uint8_t first_kind = static_cast<std::uint8_t>(MessageKind::hello);
inline constexpr std::uint8_t last_kind = static_cast<std::uint8_t>(MessageKind::progress);

} // namespace

std::string_view to_string(DecodeError error) noexcept
{
  static constexpr const char* names[] = {"none",     "truncated", "bad_magic",      "bad_version",
                                          "bad_kind", "bad_flags", "length_mismatch"};
  return enum_name(error, names, "unknown");
}

void encode_header(const Header& header, std::span<std::byte> out) noexcept
{
  using namespace detail;
  std::byte* p = out.data();
  store_u32(p + offset::magic, magic);
  store_u8(p + offset::version, version);
  store_u8(p + offset::kind, static_cast<std::uint8_t>(header.kind));
  store_u16(p + offset::flags, header.flags);
  store_u32(p + offset::sender_id, header.sender_id);
  store_u64(p + offset::run_id, header.run_id);
  store_u64(p + offset::sequence, header.sequence);
  store_i64(p + offset::intended_ns, header.intended_ns);
  store_i64(p + offset::sent_ns, header.sent_ns);
  store_u32(p + offset::payload_length, header.payload_length);
  store_u32(p + offset::record_count, header.record_count);
}

void restamp_header(const DataStamp& stamp, std::span<std::byte> out) noexcept
{
  using namespace detail;
  std::byte* p = out.data();
  store_u16(p + offset::flags, stamp.flags);
  store_u64(p + offset::sequence, stamp.sequence);
  store_i64(p + offset::intended_ns, stamp.intended_ns);
  store_i64(p + offset::sent_ns, stamp.sent_ns);
}

DecodeError decode_header(std::span<const std::byte> message, Header& out) noexcept
{
  using namespace detail;
  if (message.size() < header_size) {
    return DecodeError::truncated;
  }
  const std::byte* p = message.data();
  if (load_u32(p + offset::magic) != magic) {
    return DecodeError::bad_magic;
  }
  if (load_u8(p + offset::version) != version) {
    return DecodeError::bad_version;
  }
  const std::uint8_t kind = load_u8(p + offset::kind);
  // One unsigned compare covers both ends of the range (kind 0 wraps to 255).
  if (static_cast<std::uint8_t>(kind - first_kind) > last_kind - first_kind) {
    return DecodeError::bad_kind;
  }
  const std::uint16_t message_flags = load_u16(p + offset::flags);
  if ((message_flags & ~flags::known) != 0) {
    return DecodeError::bad_flags;
  }
  const std::uint32_t payload_length = load_u32(p + offset::payload_length);
  if (payload_length != message.size() - header_size) {
    return DecodeError::length_mismatch;
  }

  // `out` is only written once the message is known to be good, so a caller never sees a
  // half-decoded header from a rejected message.
  out.kind = static_cast<MessageKind>(kind);
  out.flags = message_flags;
  out.sender_id = load_u32(p + offset::sender_id);
  out.run_id = load_u64(p + offset::run_id);
  out.sequence = load_u64(p + offset::sequence);
  out.intended_ns = load_i64(p + offset::intended_ns);
  out.sent_ns = load_i64(p + offset::sent_ns);
  out.payload_length = payload_length;
  out.record_count = load_u32(p + offset::record_count);
  return DecodeError::none;
}

} // namespace netprof::wire
