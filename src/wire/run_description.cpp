#include "little_endian.hpp"

#include <netprof/wire.hpp>

#include <bit>
#include <cmath>

namespace netprof::wire {

namespace {

constexpr std::uint64_t round_robin_bit = 2; // in the mode field, beside ping-pong's bit 0

bool plausible_rate(double hz) noexcept
{
  return std::isfinite(hz) && hz >= 0.0;
}

} // namespace

void encode_run_description(const RunDescription& d, std::span<std::byte> out) noexcept
{
  using detail::store_u64;
  std::byte* p = out.data();
  for (const std::uint64_t field :
       {d.payload_size, d.num_vars, d.ping_pong | (d.round_robin ? round_robin_bit : 0), d.test_ns,
        d.count, std::bit_cast<std::uint64_t>(d.send_hz), d.warmup_ns, d.warmup_count,
        std::bit_cast<std::uint64_t>(d.probe_hz), d.subscribers, d.count_received}) {
    store_u64(p, field);
    p += sizeof(std::uint64_t);
  }
}

bool decode_run_description(std::span<const std::byte> payload, RunDescription& out) noexcept
{
  if (payload.size() != run_description_size && payload.size() != run_description_v1_size)
    return false;
  const auto field = [&](std::size_t index) {
    return detail::load_u64(payload.data() + index * sizeof(std::uint64_t));
  };
  RunDescription d;
  d.payload_size = field(0);
  d.num_vars = field(1);
  const std::uint64_t mode = field(2);
  d.ping_pong = mode & 1;
  d.round_robin = (mode & round_robin_bit) != 0;
  d.test_ns = field(3);
  d.count = field(4);
  d.send_hz = std::bit_cast<double>(field(5));
  d.warmup_ns = field(6);
  d.warmup_count = field(7);
  d.probe_hz = std::bit_cast<double>(field(8));
  d.subscribers = field(9);
  d.count_received = payload.size() == run_description_size ? field(10) : 0;
  if (mode > (1 | round_robin_bit) || !plausible_rate(d.send_hz) || !plausible_rate(d.probe_hz))
    return false;
  out = d;
  return true;
}

} // namespace netprof::wire
