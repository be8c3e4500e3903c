#include "little_endian.hpp"

#include <netprof/records.hpp>

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>

namespace netprof {

namespace {

constexpr std::string_view name_prefix = "var";
constexpr std::size_t name_length_size = 2;  // u16
constexpr std::size_t value_length_size = 4; // u32

// Framing plus the prefix and the one value byte every record must carry; only the decimal
// digits of the index vary from record to record.
constexpr std::size_t fixed_record_size =
    name_length_size + name_prefix.size() + value_length_size + 1;

std::string record_name(std::uint32_t index)
{
  return std::string(name_prefix) + std::to_string(index);
}

// Total decimal digits of 0, 1, ..., count-1, in closed form so a huge --num-vars is checked
// in constant time before anything is allocated for it.
std::size_t total_index_digits(std::uint32_t count) noexcept
{
  std::size_t total = 0;
  std::uint64_t low = 0;   // first index with `digits` digits
  std::uint64_t high = 10; // first index with more
  for (std::size_t digits = 1; low < count; ++digits) {
    total += digits * static_cast<std::size_t>(std::min<std::uint64_t>(count, high) - low);
    low = high;
    high *= 10;
  }
  return total;
}

// Opaque filler: fixed so every run sends the same bytes, varied so it is not all zeros
// (which some links or transports might compress or special-case).
std::byte filler(std::size_t position) noexcept
{
  return static_cast<std::byte>(position * 131u + 17u);
}

} // namespace

RecordLayout::RecordLayout(std::size_t payload_size, std::uint32_t record_count)
    : m_payload_size(payload_size)
{
  if (check(payload_size, record_count) != LayoutStatus::fits) {
    throw std::invalid_argument("RecordLayout: " + std::to_string(record_count) +
                                " records do not fit a payload of " + std::to_string(payload_size) +
                                " B");
  }
  if (record_count == 0) {
    return;
  }

  m_names.reserve(record_count);
  m_value_sizes.reserve(record_count);
  std::size_t framing = 0;
  for (std::uint32_t i = 0; i < record_count; ++i) {
    m_names.push_back(record_name(i));
    framing += name_length_size + m_names.back().size() + value_length_size;
  }
  const std::size_t value_bytes = payload_size - framing;
  const std::size_t share = value_bytes / record_count;
  const std::size_t remainder = value_bytes % record_count;
  for (std::uint32_t i = 0; i < record_count; ++i) {
    m_value_sizes.push_back(share + (i < remainder ? 1 : 0));
  }
}

LayoutStatus RecordLayout::check(std::size_t payload_size, std::uint32_t record_count) noexcept
{
  // The header carries payload_length as a u32, and each value_length is a u32 too.
  if (payload_size > max_payload_size) {
    return LayoutStatus::beyond_wire_limit;
  }
  return payload_size < minimum_payload_size(record_count) ? LayoutStatus::too_small_for_records
                                                           : LayoutStatus::fits;
}

std::size_t RecordLayout::minimum_payload_size(std::uint32_t record_count) noexcept
{
  return static_cast<std::size_t>(record_count) * fixed_record_size +
         total_index_digits(record_count);
}

void RecordLayout::write(std::span<std::byte> payload) const noexcept
{
  assert(payload.size() >= m_payload_size);
  std::byte* p = payload.data();
  if (m_names.empty()) {
    for (std::size_t i = 0; i < m_payload_size; ++i) {
      p[i] = filler(i);
    }
    return;
  }
  std::size_t position = 0;
  for (std::size_t r = 0; r < m_names.size(); ++r) {
    const std::string& name = m_names[r];
    wire::detail::store_u16(p + position, static_cast<std::uint16_t>(name.size()));
    position += name_length_size;
    for (const char c : name) {
      p[position++] = static_cast<std::byte>(c);
    }
    wire::detail::store_u32(p + position, static_cast<std::uint32_t>(m_value_sizes[r]));
    position += value_length_size;
    for (std::size_t i = 0; i < m_value_sizes[r]; ++i, ++position) {
      p[position] = filler(position);
    }
  }
  assert(position == m_payload_size);
}

std::uint32_t RecordLayout::record_count() const noexcept
{
  return static_cast<std::uint32_t>(m_names.size());
}

std::size_t RecordLayout::payload_size() const noexcept
{
  return m_payload_size;
}

RecordReader::RecordReader(std::uint32_t expected_record_count)
    : m_values_seen(expected_record_count, 0)
{
  m_sorted_names.reserve(expected_record_count);
  for (std::uint32_t i = 0; i < expected_record_count; ++i) {
    m_sorted_names.push_back(record_name(i));
  }
  std::sort(m_sorted_names.begin(), m_sorted_names.end());
}

std::int64_t RecordReader::read(std::span<const std::byte> payload,
                                std::uint32_t record_count) noexcept
{
  if (record_count != m_sorted_names.size()) {
    return -1;
  }
  if (record_count == 0) {
    return 0; // opaque payload: nothing to decode
  }

  const std::byte* p = payload.data();
  std::size_t remaining = payload.size();
  std::int64_t found = 0;
  for (std::uint32_t r = 0; r < record_count; ++r) {
    // Every length is checked against what is left before it is used, so no corrupt length
    // can move `p` past the end or overflow `remaining`.
    if (remaining < name_length_size) {
      return -1;
    }
    const std::size_t name_length = wire::detail::load_u16(p);
    p += name_length_size;
    remaining -= name_length_size;
    if (remaining < name_length) {
      return -1;
    }
    const std::string_view name(reinterpret_cast<const char*>(p), name_length);
    p += name_length;
    remaining -= name_length;
    if (remaining < value_length_size) {
      return -1;
    }
    const std::size_t value_length = wire::detail::load_u32(p);
    p += value_length_size;
    remaining -= value_length_size;
    if (remaining < value_length) {
      return -1;
    }
    p += value_length;
    remaining -= value_length;

    const auto slot = std::lower_bound(m_sorted_names.begin(), m_sorted_names.end(), name,
                                       [](const std::string& entry, std::string_view key) {
                                         return std::string_view(entry) < key;
                                       });
    if (slot != m_sorted_names.end() && *slot == name) {
      ++m_values_seen[static_cast<std::size_t>(slot - m_sorted_names.begin())];
      ++found;
    }
  }
  return remaining == 0 ? found : -1;
}

} // namespace netprof
