#include "core/roles/result_collection.hpp"

#include "core/roles/role_result.hpp"
#include "core/scheduling/waiting.hpp"

#include <algorithm>

namespace netprof {

namespace {

constexpr auto end_resend_interval = std::chrono::milliseconds(20);
constexpr auto end_collection_time = std::chrono::seconds(3);
constexpr auto end_collection_time_interrupted = std::chrono::milliseconds(500);
constexpr int ends_at_least = 3;
// Dealt by the transport: a subscriber silent this long is not working through its share.
constexpr auto drain_silence = std::chrono::seconds(1);

bool all_counters_received(const Membership& members) noexcept
{
  // An unproven hello may be a late joiner whose counters are its proof: END keeps going for it
  // (bounded by end_collection_time, which is all a forged hello can cost).
  return !members.awaiting_proof() &&
         std::all_of(members.members().begin(), members.members().end(),
                     [](const Member& member) { return member.final_counters.received; });
}

// A member without counters yet that was heard lately (its echoes) is still working through
// what was dealt to it: its END, dealt after that, has yet to reach it.
bool still_draining(const Membership& members, Clock::time_point now) noexcept
{
  return std::any_of(members.members().begin(), members.members().end(), [&](const Member& member) {
    return !member.final_counters.received && now - member.last_heard < drain_silence;
  });
}

// Counters alone, or counters followed by their addendum.
bool decode_final_counters(std::span<const std::byte> payload, wire::SubscriberCounters& counters,
                           std::optional<wire::FinalAddendum>& addendum) noexcept
{
  addendum.reset();
  if (payload.size() == wire::final_counters_size)
    return wire::decode_counters(payload, counters);
  wire::FinalAddendum decoded;
  // The addendum's decoder takes only its sizes (with or without the join time).
  if (payload.size() < wire::final_counters_size ||
      !wire::decode_counters(payload.first(wire::final_counters_size), counters) ||
      !wire::decode_final_addendum(payload.subspan(wire::final_counters_size), decoded))
    return false;
  addendum = decoded;
  return true;
}

} // namespace

bool ResultCollection::collect(std::uint64_t sent, const Membership& members,
                               const Dealing& dealing)
{
  m_collecting = true;
  m_sent = sent;
  const auto start = Clock::now();
  const bool interrupted = m_stop.requested();
  const auto deadline = start + (interrupted ? Nanoseconds(end_collection_time_interrupted)
                                             : Nanoseconds(end_collection_time));
  const auto drained_by = dealing.dealer != nullptr && !interrupted
                              ? std::max(deadline, start + dealing.drain_limit)
                              : deadline;
  const auto open = [&](Clock::time_point now) {
    return now < deadline || (now < drained_by && still_draining(members, now));
  };
  // Collecting goes on after a stop request: an interrupted publisher still ends the test.
  const StopFlag never_stop;
  Waiter waiter(m_endpoint, m_sink, m_wait_strategy, never_stop);
  int ends_sent = 0;
  for (auto now = start; open(now); now = Clock::now()) {
    if (ends_sent >= ends_at_least && all_counters_received(members))
      break;
    if (dealing.dealer != nullptr)
      m_control.deal(*dealing.dealer, wire::MessageKind::end, sent);
    else
      m_control.send(wire::MessageKind::end, sent);
    ++ends_sent;
    const auto next = std::min(now + end_resend_interval, drained_by);
    if (!waiter.wait_until(next, [] { return false; }))
      return false;
  }
  return true;
}

bool ResultCollection::plausible(const wire::Header& header, std::span<const std::byte> payload,
                                 wire::SubscriberCounters& counters,
                                 std::optional<wire::FinalAddendum>& addendum) const noexcept
{
  if (header.run_id != m_run_id || !decode_final_counters(payload, counters, addendum))
    return false;
  // Final counters answer an END, whose count they carry back in `sequence`: before our END,
  // or with another count, they answer a forged one. A departing subscriber sends its
  // counters so far, with whatever END it had (none: 0).
  const bool departing = (header.flags & wire::flags::departing) != 0;
  return departing || (m_collecting && header.sequence == m_sent);
}

SubscriberResult member_result(const Member& member, const MeasuredPhase& phase)
{
  const MemberCounters& final_counters = member.final_counters;
  // A late joiner is charged only with what was sent after it joined.
  const std::uint64_t before = member.joined_late && !phase.round_robin
                                   ? std::min(member.messages_before_join, phase.sent)
                                   : 0;
  const std::uint64_t owed = phase.dealt_by_transport ? final_counters.counters.unique
                             : phase.round_robin      ? member.messages_dealt
                                                      : phase.sent - before;
  SubscriberResult result = final_counters.received
                                ? subscriber_result(member.id, final_counters.counters, owed)
                                : SubscriberResult{};
  result.joined_at_sequence = before;
  result.messages_owed = owed;
  result.id = member.id;
  result.counters_received = final_counters.received;
  result.joined_late = member.joined_late;
  result.left_early = final_counters.left_early;
  if (final_counters.addendum) {
    result.usage = final_counters.addendum->usage;
    result.injected_drops = final_counters.addendum->injected_drops;
    if (final_counters.addendum->join_ns > 0)
      result.join_seconds = to_seconds(Nanoseconds(final_counters.addendum->join_ns));
  }
  const bool measured = phase.start != Clock::time_point{};
  if (measured && member.last_heard >= phase.start)
    result.last_heard_seconds = to_seconds(member.last_heard - phase.start);
  result.probes_sent = phase.dealt_by_transport ? final_counters.counters.probes_echoed
                       : phase.round_robin      ? member.probes_dealt
                                                : phase.probes_sent - member.probes_before_join;
  result.echoes = member.echoes.count;
  result.rtt = member.echoes.rtt->summarize();
  result.cross_clock = member.echoes.cross_clock.result();
  result.restarts = member.restarts;
  result.id_clash = member.clashing_instance != 0;
  if (member.refused_counters != nullptr)
    result.refused_counters = member.refused_counters;
  if (member.restarted_at != Clock::time_point{} && measured)
    result.restarted_seconds = to_seconds(member.restarted_at - phase.start);
  if (!final_counters.received)
    result.outcome = SubscriberOutcome::vanished;
  else if (final_counters.left_early)
    result.outcome = SubscriberOutcome::left_early;
  else if (result.restarted_seconds >= 0)
    result.outcome = SubscriberOutcome::restarted;
  return result;
}

} // namespace netprof
