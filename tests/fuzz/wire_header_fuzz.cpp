// libFuzzer target: a whole received message (header plus payload), decoded the way netprof's
// core decodes what a transport delivers: decode_header() first, then the payload its kind
// carries (final counters; --num-vars records). Checks what include/netprof/wire.hpp promises:
//  - a rejected message leaves the caller's Header untouched;
//  - an accepted one has a known kind and flags and a payload_length equal to what arrived,
//    and encoding the decoded header gives back the bytes it was decoded from;
//  - decode_counters() accepts exactly final_counters_size bytes, and round-trips too;
//  - decode_echo_stamps() accepts only echo_stamps_size bytes of possible stamps (none below 0,
//    the echo not before the probe's arrival), and round-trips too.

#include "fuzz_input.hpp"

#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <array>
#include <cstdint>
#include <cstring>

namespace {

using namespace netprof;
using namespace netprof::wire;

// RecordReader builds a table of record_count names (the subscriber takes the count from the
// first data message that has records). Bounded here so each run stays fast; the counts a
// command line would ask for are well within it.
constexpr std::uint32_t max_fuzzed_records = 64;

Header sentinel()
{
  Header h;
  h.kind = static_cast<MessageKind>(0xEE);
  h.flags = 0xBEEF;
  h.sender_id = 0xDEADBEEF;
  h.run_id = 0x0123456789ABCDEF;
  h.sequence = 42;
  h.intended_ns = -7;
  h.sent_ns = -9;
  h.payload_length = 0xFFFFFFF0;
  h.record_count = 0xFFFFFFF1;
  return h;
}

std::array<std::byte, header_size> encoded(const Header& header)
{
  std::array<std::byte, header_size> out{};
  encode_header(header, out);
  return out;
}

void check_counters(std::span<const std::byte> payload)
{
  SubscriberCounters counters;
  const bool accepted = decode_counters(payload, counters);
  NETPROF_FUZZ_CHECK(accepted == (payload.size() == final_counters_size));
  if (accepted) {
    std::array<std::byte, final_counters_size> again{};
    encode_counters(counters, again);
    NETPROF_FUZZ_CHECK(std::memcmp(again.data(), payload.data(), final_counters_size) == 0);
  }
}

void check_echo_stamps(std::span<const std::byte> payload)
{
  EchoStamps stamps;
  const bool accepted = decode_echo_stamps(payload, stamps);
  NETPROF_FUZZ_CHECK(!accepted || payload.size() == echo_stamps_size);
  if (accepted) {
    NETPROF_FUZZ_CHECK(stamps.arrived_ns >= 0 && stamps.echoed_ns >= stamps.arrived_ns);
    std::array<std::byte, echo_stamps_size> again{};
    encode_echo_stamps(stamps, again);
    NETPROF_FUZZ_CHECK(std::memcmp(again.data(), payload.data(), echo_stamps_size) == 0);
  }
}

void check_records(std::span<const std::byte> payload, std::uint32_t record_count)
{
  if (record_count > max_fuzzed_records) {
    return;
  }
  RecordReader reader(record_count);
  const std::int64_t found = reader.read(payload, record_count);
  NETPROF_FUZZ_CHECK(found >= -1 && found <= static_cast<std::int64_t>(record_count));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::span<const std::byte> message = std::as_bytes(std::span(data, size));
  const Header untouched = sentinel();
  Header decoded = untouched;
  const DecodeError result = decode_header(message, decoded);
  NETPROF_FUZZ_CHECK(!to_string(result).empty() && to_string(result) != "unknown");

  if (result != DecodeError::none) {
    NETPROF_FUZZ_CHECK(encoded(decoded) == encoded(untouched));
    NETPROF_FUZZ_CHECK(decoded.kind == untouched.kind); // encoded() keeps only its low byte
    return 0;
  }

  NETPROF_FUZZ_CHECK(size >= header_size);
  NETPROF_FUZZ_CHECK(decoded.payload_length == size - header_size);
  NETPROF_FUZZ_CHECK((decoded.flags & ~flags::known) == 0);
  const auto kind = static_cast<std::uint8_t>(decoded.kind);
  NETPROF_FUZZ_CHECK(kind >= static_cast<std::uint8_t>(MessageKind::hello) &&
                     kind <= static_cast<std::uint8_t>(MessageKind::progress));
  const auto again = encoded(decoded);
  NETPROF_FUZZ_CHECK(std::memcmp(again.data(), data, header_size) == 0);

  const std::span<const std::byte> payload = message.subspan(header_size);
  if (decoded.kind == MessageKind::final_counters) {
    check_counters(payload);
  } else if (decoded.kind == MessageKind::data) {
    check_records(payload, decoded.record_count);
  } else if (decoded.kind == MessageKind::echo) {
    check_echo_stamps(payload);
  }
  return 0;
}
