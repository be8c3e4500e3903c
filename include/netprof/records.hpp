#pragma once

// --num-vars: the payload is split into N named records, so a profile can include the cost of
// marshalling several variables (as MADARA's knowledge updates do). Layout of each record,
// little-endian:  u16 name_length | name bytes | u32 value_length | value bytes.
// Names are "var0", "var1", ... The payload size (-s) includes this framing; the value bytes
// are split as evenly as possible.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace netprof {

// Whether a payload size can carry a number of records; the command line words the refusal.
enum class LayoutStatus {
  fits,
  beyond_wire_limit,    // the header's payload_length (a u32) cannot say the size
  too_small_for_records // less than minimum_payload_size(record_count)
};

class RecordLayout {
public:
  // The largest payload the header can announce.
  static constexpr std::size_t max_payload_size = std::numeric_limits<std::uint32_t>::max();

  static LayoutStatus check(std::size_t payload_size, std::uint32_t record_count) noexcept;

  // Requires check(payload_size, record_count) == fits; throws std::invalid_argument otherwise
  // (a caller that let a bad size through has a bug, not a user's mistake to word).
  RecordLayout(std::size_t payload_size, std::uint32_t record_count);

  // Smallest payload that can carry `record_count` records (each with at least one value byte).
  static std::size_t minimum_payload_size(std::uint32_t record_count) noexcept;

  // Fills `payload` (exactly payload_size bytes) with the records once, at setup.
  void write(std::span<std::byte> payload) const noexcept;

  std::uint32_t record_count() const noexcept;
  std::size_t payload_size() const noexcept;

private:
  std::size_t m_payload_size;
  std::vector<std::string> m_names;
  std::vector<std::size_t> m_value_sizes;
};

// The subscriber's side: decodes every record and looks its name up in a table built once,
// the way a knowledge base finds a variable. No allocation per message.
class RecordReader {
public:
  explicit RecordReader(std::uint32_t expected_record_count);

  // Number of records decoded whose name was found; -1 if the payload is malformed
  // (truncated record, count mismatch, trailing bytes). 0 for an opaque payload
  // (record_count 0 and a reader built for 0).
  std::int64_t read(std::span<const std::byte> payload, std::uint32_t record_count) noexcept;

private:
  std::vector<std::string> m_sorted_names;
  std::vector<std::uint64_t> m_values_seen; // one slot per name, so the lookup has an effect
};

} // namespace netprof
