#pragma once

#include "core/protocol/outgoing_message.hpp"

#include <netprof/clock.hpp>
#include <netprof/wire.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace netprof {

// The subscriber's answer to a probe: the echo, carrying the probe's arrival (t2) and the
// echo's send (t3). Under --echo full it is as long as the probe, from a buffer made large
// enough at a control event, so answering never allocates; a probe larger than that buffer
// gets the record echo (the stamps alone), and the report's bytes per echo says so.
class EchoResponder {
public:
  // `payload_size`: this process's own -s; `largest_message`: what the endpoint takes in.
  EchoResponder(std::size_t payload_size, std::size_t largest_message);

  // A run's probes may be larger than this process's own -s: makes the full echo as large as
  // the run's payload (a control event: it may allocate).
  void make_room_for(std::uint64_t run_payload_size) noexcept;

  // The echo of `probe`, sent by subscriber `id` of instance `instance`, to send at once: t3
  // is stamped last, as close to the send as the encoding allows.
  std::span<const std::byte> answer(const wire::Header& probe, std::uint32_t id,
                                    std::uint32_t instance, Clock::time_point arrived) noexcept;

private:
  OutgoingMessage m_echo;
  OutgoingMessage m_full_echo;
  const std::size_t m_largest_message;
};

} // namespace netprof
