#include "core/roles/final_exchange.hpp"

#include <algorithm>

namespace netprof {

FinalExchange::FinalExchange(const ControlAuthentication& authentication)
    : m_authentication(authentication),
      m_message(wire::final_counters_with_addendum_size + authentication.tag_room())
{
}

EndTaking FinalExchange::on_end(const wire::Header& header, SubscriberRun& run,
                                Clock::time_point now) noexcept
{
  if (wire::carried_secret(header) != run.end_token)
    return EndTaking::refused; // from someone who saw our echoes, not our acknowledgement
  const std::uint64_t count = header.sequence;
  // Measured messages are numbered from 0 and END follows the last: an END counting no more
  // than the highest number already received is impossible.
  if (run.sequences.received() > 0 && count <= run.highest_sequence)
    return EndTaking::refused;
  if (run.end_received && count != run.publisher_sent) {
    // Two ENDs with no data between them disagree: one is forged, and nothing here tells
    // which. The first stands; the verdict says so unless the publisher accepts our counters
    // (it takes only those carrying its own count back).
    ++run.conflicting_ends;
    run.conflicting_count = count;
    return EndTaking::refused;
  }
  EndTaking taking = EndTaking::taken;
  if (!run.end_received && run.withdrawn_end == count) {
    taking = EndTaking::restored; // the END data followed was real after all (reordered)
    run.withdrawn_end.reset();
  }
  run.end_received = true;
  run.publisher_sent = count;
  run.last_end = now;
  return taking;
}

FinalAckTaking FinalExchange::on_final_ack(const wire::Header& header, SubscriberRun& run,
                                           Joining& joining) noexcept
{
  // Only the answer to our final counters, which we send only on an END: one without an END
  // standing (forged, or of an END that data then proved premature) ends nothing.
  if (header.sequence != joining.id())
    return FinalAckTaking::not_ours; // another subscriber's, on a shared medium
  if (joining.addressed_to_us(header, run) && run.end_received &&
      wire::carried_secret(header) == run.end_token) {
    run.final_acknowledged = true;
    return FinalAckTaking::accepted;
  }
  return FinalAckTaking::refused;
}

std::span<const std::byte> FinalExchange::counters(const SubscriberRun& run, const Joining& joining,
                                                   std::uint64_t rejected,
                                                   const wire::ProcessUsage& usage,
                                                   std::uint16_t flags,
                                                   Clock::time_point now) noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::final_counters;
  header.flags = flags;
  header.sender_id = joining.id();
  header.run_id = run.run_id;
  header.sequence = run.publisher_sent;
  header.record_count = joining.instance();
  const std::int64_t now_ns = to_wire_ns(now);
  header.intended_ns = now_ns;
  header.sent_ns = now_ns;
  wire::encode_counters(run.counters(rejected), m_message.payload());
  const std::uint64_t join_ns =
      run.joined_after
          ? static_cast<std::uint64_t>(std::max<std::int64_t>(run.joined_after->count(), 1))
          : 0;
  wire::encode_final_addendum({usage, run.injected_drops, join_ns},
                              m_message.payload().subspan(wire::final_counters_size));
  return m_authentication.seal(m_message, header);
}

} // namespace netprof
