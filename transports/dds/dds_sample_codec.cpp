#include "dds_sample_codec.hpp"

#include "dds_flat_payloads.h"

#include <netprof/errors.hpp>

#include <algorithm>
#include <cstring>

namespace netprof::dds_parts {

namespace {

// Every Flat<N> has the layout of Flat256 up to its array, which is N + 64 bytes long.
using FlatPrefix = netprof_dds_Flat256;
constexpr std::size_t flat_data_offset = offsetof(FlatPrefix, data);
constexpr std::size_t flat_header_room = 64;
#define FLAT_VARIANT(N)                                                                            \
  static_assert(offsetof(netprof_dds_Flat##N, data) == flat_data_offset &&                         \
                sizeof(netprof_dds_Flat##N::data) == (N) + flat_header_room);
#include "dds_flat_table.inc"
#undef FLAT_VARIANT

struct FlatVariant {
  std::size_t payload;
  const dds_topic_descriptor_t* descriptor;
};

constexpr FlatVariant flat_variants[] = {
#define FLAT_VARIANT(N) {N, &netprof_dds_Flat##N##_desc},
#include "dds_flat_table.inc"
#undef FLAT_VARIANT
};

// An element's numbers, `stamp` to `flags`, are element_payload bytes with no padding between.
constexpr std::size_t element_numbers = offsetof(netprof_dds_Element, stamp);
static_assert(offsetof(netprof_dds_Element, flags) + sizeof(std::uint32_t) - element_numbers ==
              element_payload);

// Every element's name: the string each struct of the DDS evaluation's type holds.
char element_name[] = "element";

// The bound of Nested's `head` and `tail` in the IDL.
constexpr std::size_t head_bound = 64;
constexpr std::size_t tail_bound = 32;
static_assert(tail_bound == element_payload);

void put_numbers(netprof_dds_Element& element, const std::byte* from) noexcept
{
  std::memcpy(reinterpret_cast<std::byte*>(&element) + element_numbers, from, element_payload);
}

void get_numbers(const netprof_dds_Element& element, std::byte* to) noexcept
{
  std::memcpy(to, reinterpret_cast<const std::byte*>(&element) + element_numbers, element_payload);
}

std::uint8_t* writable(const std::byte* bytes) noexcept
{
  // dds_write serializes the sample and never writes to it; the type's fields are not const.
  return reinterpret_cast<std::uint8_t*>(const_cast<std::byte*>(bytes));
}

void point_at(dds_sequence_octet& sequence, std::span<const std::byte> bytes) noexcept
{
  sequence._length = static_cast<std::uint32_t>(bytes.size());
  sequence._maximum = sequence._length;
  sequence._buffer = writable(bytes.data());
  sequence._release = false;
}

} // namespace

struct SampleCodec::NestedSample {
  netprof_dds_Nested sample{};
  std::vector<netprof_dds_Element> elements;
  std::byte head[head_bound]{};
  std::byte tail[tail_bound]{};

  explicit NestedSample(std::size_t capacity) : elements(capacity)
  {
    for (netprof_dds_Element& element : elements)
      element.name = element_name;
    sample.head = {head_bound, 0, reinterpret_cast<std::uint8_t*>(head), false};
    sample.tail = {tail_bound, 0, reinterpret_cast<std::uint8_t*>(tail), false};
    sample.elements = {static_cast<std::uint32_t>(capacity), 0, elements.data(), false};
  }

  // Lays `payload` into the elements and the tail; false when it has more elements' worth than
  // this sample has room for.
  bool hold_payload(std::span<const std::byte> payload) noexcept
  {
    const std::size_t whole = payload.size() / element_payload;
    if (whole > elements.size())
      return false;
    for (std::size_t i = 0; i < whole; ++i)
      put_numbers(elements[i], payload.data() + i * element_payload);
    const std::size_t rest = payload.size() - whole * element_payload;
    std::memcpy(tail, payload.data() + whole * element_payload, rest);
    sample.elements._length = static_cast<std::uint32_t>(whole);
    sample.tail._length = static_cast<std::uint32_t>(rest);
    return true;
  }

  void hold_head(std::span<const std::byte> header, std::uint32_t key) noexcept
  {
    std::memcpy(head, header.data(), header.size());
    sample.head._length = static_cast<std::uint32_t>(header.size());
    sample.key = key;
  }
};

SampleType choose_sample_type(PayloadType payload, std::uint32_t keys, std::size_t payload_bytes)
{
  SampleType type{.payload = payload, .keyed = keys > 1};
  switch (payload) {
  case PayloadType::bytes:
    type.descriptor = type.keyed ? &netprof_dds_KeyedMessage_desc : &netprof_dds_Message_desc;
    return type;
  case PayloadType::nested:
    type.descriptor = &netprof_dds_Nested_desc;
    return type;
  case PayloadType::flat_struct:
    break;
  }
  const std::size_t needed = std::max(payload_bytes, largest_control_payload);
  for (const FlatVariant& variant : flat_variants) {
    if (variant.payload >= needed) {
      type.flat_payload = variant.payload;
      type.descriptor = variant.descriptor;
      return type;
    }
  }
  throw TransportError("--payload-type struct holds at most " +
                       std::to_string(std::end(flat_variants)[-1].payload) +
                       " B of payload; -s is " + std::to_string(payload_bytes));
}

std::string describe(const SampleType& type)
{
  const std::string name = type.descriptor->m_typename;
  switch (type.payload) {
  case PayloadType::bytes:
    return name + " (the message as opaque octets)";
  case PayloadType::flat_struct:
    return name + " (a flat struct: key, length, counter and a fixed array of " +
           std::to_string(type.flat_payload + flat_header_room) +
           " B holding the message; every sample carries the whole array)";
  case PayloadType::nested:
    break;
  }
  return name + " (the header in head, then a sequence of elements, each a name and 32 B of "
                "the payload in numbers, and the last bytes in tail)";
}

SampleCodec::SampleCodec(const SampleType& type, std::size_t header_bytes,
                         std::size_t largest_message)
    : m_type(type), m_header_bytes(std::min(header_bytes, head_bound)),
      m_largest_message(largest_message)
{
  if (type.payload == PayloadType::flat_struct) {
    const std::size_t size = type.descriptor->m_size;
    m_flat_kept = std::make_unique<std::byte[]>(size);
    m_flat_other = std::make_unique<std::byte[]>(size);
  } else if (type.payload == PayloadType::nested) {
    const std::size_t elements = largest_message / element_payload + 1;
    m_nested_other = std::make_unique<NestedSample>(elements);
    m_received.resize(largest_message);
  }
}

SampleCodec::~SampleCodec() = default;

void SampleCodec::keep_payload(std::span<const std::byte> payload)
{
  m_kept = payload;
  if (m_type.payload == PayloadType::flat_struct) {
    if (m_header_bytes + payload.size() <= m_type.flat_payload + flat_header_room)
      std::memcpy(m_flat_kept.get() + flat_data_offset + m_header_bytes, payload.data(),
                  payload.size());
    else
      m_kept = {}; // sample_of() refuses such messages anyway
  } else if (m_type.payload == PayloadType::nested) {
    m_nested_kept = std::make_unique<NestedSample>(payload.size() / element_payload);
    m_nested_kept->hold_payload(payload);
  }
}

bool SampleCodec::is_kept(std::span<const std::byte> message) const noexcept
{
  // The very bytes the core said it keeps, compared by place, not content.
  return !m_kept.empty() && message.size() == m_header_bytes + m_kept.size() &&
         message.data() + message.size() == m_kept.data() + m_kept.size();
}

const void* SampleCodec::sample_of(std::span<const std::byte> message, std::uint32_t key) noexcept
{
  switch (m_type.payload) {
  case PayloadType::flat_struct:
    return flat_sample(message, key);
  case PayloadType::nested:
    return nested_sample(message, key);
  case PayloadType::bytes:
    break;
  }
  return bytes_sample(message, key);
}

const void* SampleCodec::bytes_sample(std::span<const std::byte> message,
                                      std::uint32_t key) noexcept
{
  if (!m_type.keyed) {
    point_at(m_message.bytes, message);
    return &m_message;
  }
  m_keyed.key = key;
  point_at(m_keyed.bytes, message);
  return &m_keyed;
}

const void* SampleCodec::flat_sample(std::span<const std::byte> message, std::uint32_t key) noexcept
{
  if (message.size() > m_type.flat_payload + flat_header_room)
    return nullptr;
  const bool kept = is_kept(message);
  std::byte* sample = kept ? m_flat_kept.get() : m_flat_other.get();
  // A data message needs only its header: the payload is in the array since keep_payload().
  const std::size_t rewritten = kept ? m_header_bytes : message.size();
  std::memcpy(sample + flat_data_offset, message.data(), rewritten);
  auto& prefix = *reinterpret_cast<FlatPrefix*>(sample);
  prefix.key = key;
  prefix.length = static_cast<std::uint32_t>(message.size());
  prefix.counter = ++m_written;
  return sample;
}

const void* SampleCodec::nested_sample(std::span<const std::byte> message,
                                       std::uint32_t key) noexcept
{
  const std::size_t head = std::min(message.size(), m_header_bytes);
  if (is_kept(message)) {
    m_nested_kept->hold_head(message.first(head), key);
    return &m_nested_kept->sample;
  }
  if (!m_nested_other->hold_payload(message.subspan(head)))
    return nullptr;
  m_nested_other->hold_head(message.first(head), key);
  return &m_nested_other->sample;
}

std::size_t SampleCodec::serialized_size(std::size_t message_bytes) const noexcept
{
  // CDR as Cyclone writes these @final types (XCDR1: 8-byte numbers 8-aligned): a sequence is
  // its length (4) and its items; a key 4 more; an element 16 for its name ("element": 4 + 8,
  // padded) and 32 for its numbers.
  constexpr std::size_t length = 4;
  switch (m_type.payload) {
  case PayloadType::flat_struct:
    return m_type.descriptor->m_size;
  case PayloadType::nested: {
    const std::size_t head = std::min(message_bytes, m_header_bytes);
    const std::size_t payload = message_bytes - head;
    const std::size_t elements = payload / element_payload;
    // The key, head, elements and tail; with netprof's 52-byte header the first element starts
    // 8-aligned, so no padding comes before it.
    return length + length + head + length + elements * (16 + element_payload) + length +
           payload % element_payload;
  }
  case PayloadType::bytes:
    break;
  }
  return (m_type.keyed ? length : 0) + length + message_bytes;
}

std::span<const std::byte> SampleCodec::message_of(const void* sample) noexcept
{
  switch (m_type.payload) {
  case PayloadType::flat_struct: {
    const auto& prefix = *static_cast<const FlatPrefix*>(sample);
    if (prefix.length > m_type.flat_payload + flat_header_room)
      return {};
    return {static_cast<const std::byte*>(sample) + flat_data_offset, prefix.length};
  }
  case PayloadType::nested:
    return nested_message(sample);
  case PayloadType::bytes:
    break;
  }
  const dds_sequence_octet& bytes =
      m_type.keyed ? static_cast<const netprof_dds_KeyedMessage*>(sample)->bytes
                   : static_cast<const netprof_dds_Message*>(sample)->bytes;
  return {reinterpret_cast<const std::byte*>(bytes._buffer), bytes._length};
}

std::span<const std::byte> SampleCodec::nested_message(const void* sample) noexcept
{
  const auto& nested = *static_cast<const netprof_dds_Nested*>(sample);
  const std::size_t head = nested.head._length;
  const std::size_t elements = nested.elements._length;
  const std::size_t tail = nested.tail._length;
  // Cyclone checks the bounds of head and tail; the elements are as many as the writer sent.
  if (head > head_bound || tail > tail_bound ||
      elements > (m_received.size() - head - tail) / element_payload)
    return {};
  std::byte* out = m_received.data();
  if (head > 0)
    std::memcpy(out, nested.head._buffer, head);
  out += head;
  for (std::size_t i = 0; i < elements; ++i, out += element_payload)
    get_numbers(nested.elements._buffer[i], out);
  if (tail > 0)
    std::memcpy(out, nested.tail._buffer, tail);
  out += tail;
  return {m_received.data(), static_cast<std::size_t>(out - m_received.data())};
}

} // namespace netprof::dds_parts
