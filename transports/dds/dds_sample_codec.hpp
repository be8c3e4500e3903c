#pragma once

// How one message of netprof's (its header, then its payload) becomes a sample of the run's DDS
// type and back, for --payload-type and --dds-keys. Every type carries any message bit for bit,
// so the core on the other side sees exactly the header and the payload that were sent:
//   bytes   Message (KeyedMessage with keys): the whole message as a sequence of octets,
//           pointed at, never copied.
//   struct  Flat<N>: key, length, a counter of samples written, and `data`, a fixed array of
//           N + 64 bytes holding the whole message (`length` of them count); N is the smallest
//           power of two from 256 B that holds the run's payload (and any control message).
//   nested  Nested: key, `head` (the header), `elements` (32 payload bytes in each element's
//           numbers, beside its name) and `tail` (the last payload bytes, fewer than 32).
// The data messages' payload never changes (PayloadKeeper): a sample prepared from it once gets
// only a new header per message. Any other message (a control message, an echo) is laid into a
// second sample, allocated at opening for the largest message. Nothing allocates per message.

#include <netprof/transport.hpp>

#include "dds_domain.hpp"
#include "dds_message.h"
#include "dds_typed_payloads.h"

#include <dds/dds.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace netprof::dds_parts {

// The type a run's topics carry, from --payload-type, --dds-keys and the message size.
struct SampleType {
  PayloadType payload = PayloadType::bytes;
  bool keyed = false;
  const dds_topic_descriptor_t* descriptor = nullptr;
  std::size_t flat_payload = 0; // struct: N, the payload bytes Flat<N> holds beside a header
};

// The payload bytes a nested element's numbers carry.
inline constexpr std::size_t element_payload = 32;
// The most a control message of netprof's takes (a subscriber's final counters with their
// addendum and a MAC, 204 B): a flat struct holds at least this much payload beside its header.
inline constexpr std::size_t largest_control_payload = 256;

// nested: the most payload whose serialized sample (about 1.5 bytes a payload byte: each
// element's name beside its numbers) stays within Cyclone's MaxSampleSize, header and all.
inline constexpr std::size_t nested_max_payload =
    (max_serialized_sample - 256) / (16 + element_payload) * element_payload;

// Throws TransportError when no flat struct holds `payload_bytes` (beyond 1 MiB).
SampleType choose_sample_type(PayloadType payload, std::uint32_t keys, std::size_t payload_bytes);

// The type's name and size in words, for the report's notes.
std::string describe(const SampleType& type);

class SampleCodec {
public:
  // `header_bytes`: the front of every message that `head` or the flat array's first bytes
  // hold (at most 64); `largest_message`: what the fallback sample is sized for.
  SampleCodec(const SampleType& type, std::size_t header_bytes, std::size_t largest_message);
  ~SampleCodec();
  SampleCodec(const SampleCodec&) = delete;
  SampleCodec& operator=(const SampleCodec&) = delete;

  // Prepares the sample every data message is written from (PayloadKeeper): `payload` stays
  // where it is, and a message ending where it ends is a header and this payload. May allocate.
  void keep_payload(std::span<const std::byte> payload);

  // The sample to hand dds_write for `message`, in instance `key`; null when the type cannot
  // hold it (larger than a flat struct's array, or than the fallback sample was sized for).
  // Valid until the next call. Never allocates.
  const void* sample_of(std::span<const std::byte> message, std::uint32_t key) noexcept;

  // True when `message` is a data message (a header and the kept payload).
  bool is_kept(std::span<const std::byte> message) const noexcept;

  // The message a received sample holds: its bytes in the sample (bytes, struct) or in a buffer
  // of this codec (nested), valid until the next call; empty when no message fills it (a
  // stranger's, with lengths beyond the type's), which the core rejects. Never allocates.
  std::span<const std::byte> message_of(const void* sample) noexcept;

  // About how many bytes the serialized sample of a message of this size takes (CDR, without
  // the encapsulation header), for the report's wire bytes.
  std::size_t serialized_size(std::size_t message_bytes) const noexcept;

  const SampleType& type() const noexcept { return m_type; }

private:
  struct NestedSample; // netprof_dds_Nested and the elements its sequence points at
  const void* bytes_sample(std::span<const std::byte> message, std::uint32_t key) noexcept;
  const void* flat_sample(std::span<const std::byte> message, std::uint32_t key) noexcept;
  const void* nested_sample(std::span<const std::byte> message, std::uint32_t key) noexcept;
  std::span<const std::byte> nested_message(const void* sample) noexcept;

  SampleType m_type;
  std::size_t m_header_bytes;
  std::size_t m_largest_message;
  std::span<const std::byte> m_kept; // the data messages' payload, where the core keeps it
  // bytes: filled per message (a pointer and a length).
  netprof_dds_Message m_message{};
  netprof_dds_KeyedMessage m_keyed{};
  // struct: the kept sample and the fallback one, each the size of the type.
  std::unique_ptr<std::byte[]> m_flat_kept;
  std::unique_ptr<std::byte[]> m_flat_other;
  std::uint64_t m_written = 0; // struct: the counter field
  // nested: the kept sample and the fallback one.
  std::unique_ptr<NestedSample> m_nested_kept;
  std::unique_ptr<NestedSample> m_nested_other;
  std::vector<std::byte> m_received; // nested: a received message, put back together
};

} // namespace netprof::dds_parts
