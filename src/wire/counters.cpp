#include "little_endian.hpp"

#include <netprof/wire.hpp>

#include <array>

namespace netprof::wire {

namespace {

// Wire order of the fields: one table drives both directions, so they cannot drift apart.
// Appending a field here changes final_counters_size and therefore the wire version.
constexpr std::array<std::uint64_t SubscriberCounters::*, 13> fields = {
    &SubscriberCounters::received,
    &SubscriberCounters::unique,
    &SubscriberCounters::duplicates,
    &SubscriberCounters::out_of_order,
    &SubscriberCounters::gaps,
    &SubscriberCounters::datagrams,
    &SubscriberCounters::payload_bytes,
    &SubscriberCounters::wire_bytes,
    &SubscriberCounters::first_to_last_ns,
    &SubscriberCounters::probes_echoed,
    &SubscriberCounters::rejected,
    &SubscriberCounters::warmup_received,
    &SubscriberCounters::records_decoded,
};

static_assert(fields.size() * sizeof(std::uint64_t) == final_counters_size);
// Catches a field added to SubscriberCounters but not to the table above.
static_assert(sizeof(SubscriberCounters) == fields.size() * sizeof(std::uint64_t));

} // namespace

void encode_counters(const SubscriberCounters& counters, std::span<std::byte> out) noexcept
{
  std::byte* p = out.data();
  for (const auto field : fields) {
    detail::store_u64(p, counters.*field);
    p += sizeof(std::uint64_t);
  }
}

bool decode_counters(std::span<const std::byte> payload, SubscriberCounters& out) noexcept
{
  if (payload.size() != final_counters_size) {
    return false;
  }
  const std::byte* p = payload.data();
  for (const auto field : fields) {
    out.*field = detail::load_u64(p);
    p += sizeof(std::uint64_t);
  }
  return true;
}

} // namespace netprof::wire
