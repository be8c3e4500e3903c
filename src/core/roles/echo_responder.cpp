#include "core/roles/echo_responder.hpp"

#include <new>

namespace netprof {

EchoResponder::EchoResponder(std::size_t payload_size, std::size_t largest_message)
    : m_echo(wire::echo_stamps_size), m_full_echo(wire::full_echo_payload_size(payload_size)),
      m_largest_message(largest_message)
{
}

void EchoResponder::make_room_for(std::uint64_t run_payload_size) noexcept
{
  if (run_payload_size > m_largest_message)
    return; // a probe larger than the endpoint takes gets the record echo
  try {
    m_full_echo.reserve_payload(
        wire::full_echo_payload_size(static_cast<std::size_t>(run_payload_size)));
  } catch (const std::bad_alloc&) {
    // Without the room, probes get the record echo, and the report's bytes per echo says so.
  }
}

std::span<const std::byte> EchoResponder::answer(const wire::Header& probe, std::uint32_t id,
                                                 std::uint32_t instance,
                                                 Clock::time_point arrived) noexcept
{
  wire::Header header = probe;
  header.kind = wire::MessageKind::echo;
  header.sender_id = id;
  header.record_count = instance;
  // --echo full: as many bytes back as came (filler after the stamps, written once, so nothing
  // is copied per probe).
  const std::size_t full_size = wire::full_echo_payload_size(probe.payload_length);
  const bool full =
      (probe.flags & wire::flags::full_echo) != 0 && full_size <= m_full_echo.payload_capacity();
  OutgoingMessage& out = full ? m_full_echo : m_echo;
  const std::span<std::byte> message =
      full ? out.with_header(header, full_size) : out.with_header(header);
  wire::encode_echo_stamps({to_wire_ns(arrived), to_wire_ns(Clock::now())}, out.payload());
  return message;
}

} // namespace netprof
