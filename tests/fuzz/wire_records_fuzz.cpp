// libFuzzer target: the --num-vars record decoder (include/netprof/records.hpp).
// Input: u8 records the reader expects, u8 records the header announces, then the payload.
// Checks what RecordReader::read() promises: -1 for a malformed payload or a count mismatch,
// otherwise at most the announced number of records found; and that what RecordLayout writes
// for a payload of this size and the expected count reads back as every record found.

#include "fuzz_input.hpp"

#include <netprof/records.hpp>

#include <cstdint>
#include <vector>

namespace {

// Round trips allocate the payload again; larger ones add time per run and nothing new.
constexpr std::size_t max_round_trip_size = 4096;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  netprof::fuzz::FuzzInput in(std::as_bytes(std::span(data, size)));
  const std::uint32_t expected = in.u8();
  const std::uint32_t announced = in.u8();
  // The rest of libFuzzer's exactly-sized buffer: ASan reports any read past its end.
  const std::span<const std::byte> payload = in.bytes(size);

  netprof::RecordReader reader(expected);
  const std::int64_t found = reader.read(payload, announced);
  NETPROF_FUZZ_CHECK(found >= -1 && found <= static_cast<std::int64_t>(announced));
  if (announced != expected) {
    NETPROF_FUZZ_CHECK(found == -1);
  } else if (expected == 0) {
    NETPROF_FUZZ_CHECK(found == 0); // an opaque payload: nothing to decode, nothing wrong
  }

  if (payload.size() >= netprof::RecordLayout::minimum_payload_size(expected) &&
      payload.size() <= max_round_trip_size) {
    const netprof::RecordLayout layout(payload.size(), expected);
    std::vector<std::byte> written(payload.size());
    layout.write(written);
    NETPROF_FUZZ_CHECK(reader.read(written, expected) == static_cast<std::int64_t>(expected));
  }
  return 0;
}
