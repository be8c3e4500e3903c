#include "little_endian.hpp"

#include <netprof/wire.hpp>

namespace netprof::wire {

namespace {

// Bounds that no real process reaches, so a forged figure is refused rather than reported.
constexpr std::uint64_t most_cpu_ns = 366ULL * 24 * 3600 * 1'000'000'000;
constexpr std::uint64_t most_rss_bytes = 1ULL << 48;

} // namespace

void encode_process_usage(const ProcessUsage& usage, std::span<std::byte> out) noexcept
{
  detail::store_u64(out.data(), usage.user_cpu_ns);
  detail::store_u64(out.data() + 8, usage.system_cpu_ns);
  detail::store_u64(out.data() + 16, usage.peak_rss_bytes);
}

bool decode_process_usage(std::span<const std::byte> payload, ProcessUsage& out) noexcept
{
  if (payload.size() != process_usage_size)
    return false;
  ProcessUsage usage;
  usage.user_cpu_ns = detail::load_u64(payload.data());
  usage.system_cpu_ns = detail::load_u64(payload.data() + 8);
  usage.peak_rss_bytes = detail::load_u64(payload.data() + 16);
  if (usage.user_cpu_ns > most_cpu_ns || usage.system_cpu_ns > most_cpu_ns ||
      usage.peak_rss_bytes > most_rss_bytes)
    return false;
  out = usage;
  return true;
}

} // namespace netprof::wire
