#include "little_endian.hpp"

#include <netprof/wire.hpp>

namespace netprof::wire {

void encode_echo_stamps(const EchoStamps& stamps, std::span<std::byte> out) noexcept
{
  detail::store_i64(out.data(), stamps.arrived_ns);
  detail::store_i64(out.data() + 8, stamps.echoed_ns);
}

bool decode_echo_stamps(std::span<const std::byte> payload, EchoStamps& out) noexcept
{
  if (payload.size() != echo_stamps_size)
    return false;
  EchoStamps stamps;
  stamps.arrived_ns = detail::load_i64(payload.data());
  stamps.echoed_ns = detail::load_i64(payload.data() + 8);
  // Refused here, so the publisher's offset arithmetic never meets a value that could overflow
  // it or a turnaround that runs backwards.
  if (stamps.arrived_ns < 0 || stamps.echoed_ns < stamps.arrived_ns)
    return false;
  out = stamps;
  return true;
}

} // namespace netprof::wire
