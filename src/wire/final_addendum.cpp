#include "little_endian.hpp"

#include <netprof/wire.hpp>

namespace netprof::wire {

namespace {

// Bounds that no real process reaches, so a forged figure is refused rather than reported.
constexpr std::uint64_t most_cpu_ns = 366ULL * 24 * 3600 * 1'000'000'000;
constexpr std::uint64_t most_rss_bytes = 1ULL << 48;

} // namespace

void encode_final_addendum(const FinalAddendum& addendum, std::span<std::byte> out) noexcept
{
  detail::store_u64(out.data(), addendum.usage.user_cpu_ns);
  detail::store_u64(out.data() + 8, addendum.usage.system_cpu_ns);
  detail::store_u64(out.data() + 16, addendum.usage.peak_rss_bytes);
  detail::store_u64(out.data() + 24, addendum.injected_drops);
  detail::store_u64(out.data() + 32, addendum.join_ns);
}

bool decode_final_addendum(std::span<const std::byte> payload, FinalAddendum& out) noexcept
{
  if (payload.size() != final_addendum_size && payload.size() != final_addendum_v1_size)
    return false;
  FinalAddendum addendum;
  addendum.usage.user_cpu_ns = detail::load_u64(payload.data());
  addendum.usage.system_cpu_ns = detail::load_u64(payload.data() + 8);
  addendum.usage.peak_rss_bytes = detail::load_u64(payload.data() + 16);
  addendum.injected_drops = detail::load_u64(payload.data() + 24);
  if (payload.size() == final_addendum_size)
    addendum.join_ns = detail::load_u64(payload.data() + 32);
  const ProcessUsage& usage = addendum.usage;
  if (usage.user_cpu_ns > most_cpu_ns || usage.system_cpu_ns > most_cpu_ns ||
      usage.peak_rss_bytes > most_rss_bytes || addendum.join_ns > most_cpu_ns)
    return false;
  out = addendum;
  return true;
}

} // namespace netprof::wire
