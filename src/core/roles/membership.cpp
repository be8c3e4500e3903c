#include "core/roles/membership.hpp"

#include <algorithm>

namespace netprof {

Membership::Membership(std::size_t expected_members)
    : m_admission_cap(std::min(max_members, expected_members + members_beyond_expected))
{
  m_members.reserve(max_members);
  m_candidates.reserve(max_candidates);
}

bool Membership::admits_on_hello() const noexcept
{
  return m_admission_open && m_members.size() < m_admission_cap;
}

HelloDecision Membership::on_hello(std::uint32_t id, std::uint32_t instance,
                                   std::uint64_t probes_sent, Clock::time_point now,
                                   std::uint64_t messages_sent) noexcept
{
  HelloDecision decision = HelloDecision::acknowledge;
  Member* member = find(id);
  if (member != nullptr && instance != 0 && member->instance != 0 && instance != member->instance) {
    if (instance == member->retired_instance) {
      heard_retired(*member, now); // in flight from a process a restart replaced, or alive
      return HelloDecision::reject;
    }
    // Another process names a known id: a restart, or a forgery. Not believed yet (Candidate);
    // the process we know keeps its place meanwhile.
    member = nullptr;
  } else if (member == nullptr && admits_on_hello()) {
    member = add(id, probes_sent, messages_sent);
    if (member == nullptr)
      return HelloDecision::reject;
    decision = HelloDecision::adopt_and_acknowledge;
  }
  if (member == nullptr)
    return note_candidate(id, instance, probes_sent, now, messages_sent);
  if (member->instance == 0)
    member->instance = instance;
  member->last_heard = now;
  // Every hello is answered: the subscriber repeats it until one acknowledgement gets through.
  return decision;
}

ProofDecision Membership::on_unusual_proof(Member* member, std::uint32_t id, std::uint32_t instance,
                                           Clock::time_point now) noexcept
{
  ProofDecision decision;
  if (member == nullptr) {
    // Only an id whose hello was acknowledged can have taken part: without a hello this is a
    // forgery, or a stray of another run's subscriber.
    member = admit_candidate(id, instance);
  } else if (instance != member->instance) {
    if (member->instance == 0) {
      member->instance = instance;
    } else if (instance == 0) {
      // Every subscriber tags what it sends, and the tag is in its messages only, so a forger
      // who never saw them (a blind one, with only the id) sends none.
      return decision;
    } else if (instance == member->retired_instance) {
      heard_retired(*member, now); // not ours any more: in flight, or a second live process
      return decision;
    } else {
      follow_restart(*member, instance, now);
      decision.adopt_sender = true; // it may listen on a new address
    }
  }
  if (member == nullptr)
    return decision;
  member->last_heard = now;
  decision.member = member;
  return decision;
}

bool Membership::on_progress(std::uint32_t id, std::uint32_t instance, std::uint64_t received,
                             std::uint64_t sent, Clock::time_point now) noexcept
{
  Member* member = find(id);
  if (member == nullptr || instance != member->instance || received > sent)
    return false;
  member->reported_received = std::max(member->reported_received, received);
  member->last_heard = now;
  m_progress_news = true;
  return true;
}

Member* Membership::add(std::uint32_t id, std::uint64_t probes_sent,
                        std::uint64_t messages_sent) noexcept
{
  if (m_members.size() >= max_members)
    return nullptr;
  // A join is a control event, not the per-message path: its histogram may allocate here.
  try {
    Member& added = m_members.emplace_back();
    added.id = id;
    added.joined_late = !m_admission_open;
    added.probes_before_join = probes_sent;
    added.messages_before_join = messages_sent;
    return &added;
  } catch (...) {
    return nullptr;
  }
}

Member* Membership::admit_candidate(std::uint32_t id, std::uint32_t instance) noexcept
{
  const Candidate* candidate = find_candidate(id, instance);
  if (candidate == nullptr)
    return nullptr;
  Member* admitted = add(id, candidate->probes_at_hello, candidate->messages_at_hello);
  if (admitted == nullptr)
    return nullptr;
  admitted->instance = candidate->instance;
  admitted->joined_late = candidate->hello_while_measuring;
  forget(*candidate);
  return admitted;
}

// A new process took this id over (the old one was killed and restarted, most likely). It
// restarted when it said hello; whatever the old one reported is void: the new one's counters
// will replace it. Called only on a proof: a hello alone never retires the process we know.
void Membership::follow_restart(Member& member, std::uint32_t instance,
                                Clock::time_point now) noexcept
{
  bool while_measuring = !m_admission_open;
  Clock::time_point when = now;
  if (const Candidate* candidate = find_candidate(member.id, instance)) {
    while_measuring = candidate->hello_while_measuring;
    when = candidate->first_heard;
    forget(*candidate);
  }
  member.retired_instance = member.instance;
  member.instance = instance;
  member.restart_taken = now;
  ++member.restarts;
  if (while_measuring)
    member.restarted_at = std::max(when, m_measure_start);
  member.final_counters = {};
  member.reported_received = 0;
}

Candidate* Membership::find_candidate(std::uint32_t id, std::uint32_t instance) noexcept
{
  for (Candidate& candidate : m_candidates)
    if (candidate.id == id && candidate.instance == instance)
      return &candidate;
  return nullptr;
}

HelloDecision Membership::note_candidate(std::uint32_t id, std::uint32_t instance,
                                         std::uint64_t probes_sent, Clock::time_point now,
                                         std::uint64_t messages_sent) noexcept
{
  if (Candidate* known = find_candidate(id, instance)) {
    ++known->hellos;
    known->last_heard = now;
    return HelloDecision::acknowledge;
  }
  Candidate* slot = nullptr;
  if (m_candidates.size() < max_candidates) {
    slot = &m_candidates.emplace_back(); // reserved: never allocates
  } else {
    // Full (a flood): the one heard least recently gives way, its hellos counted as rejected.
    slot = &*std::min_element(
        m_candidates.begin(), m_candidates.end(),
        [](const Candidate& a, const Candidate& b) { return a.last_heard < b.last_heard; });
    m_evicted_hellos += slot->hellos;
  }
  *slot = Candidate{id, instance, 1, probes_sent, messages_sent, !m_admission_open, now, now};
  // A real late joiner or restarted process may listen on an address not known yet: without
  // this it would never hear the acknowledgement nor the data that let it prove itself.
  return HelloDecision::adopt_and_acknowledge;
}

void Membership::heard_retired(Member& member, Clock::time_point now) noexcept
{
  if (now - member.restart_taken > retired_instance_grace)
    member.clashing_instance = member.retired_instance;
}

void Membership::forget(const Candidate& candidate) noexcept
{
  const auto at = m_candidates.begin() + (&candidate - m_candidates.data());
  m_candidates.erase(at); // no allocation: elements only move down
}

Member* Membership::next_in_turn() noexcept
{
  for (std::size_t looked = 0; looked < m_members.size(); ++looked) {
    Member& member = m_members[m_turn++ % m_members.size()];
    if (!member.peer.none() && !member.final_counters.left_early)
      return &member;
  }
  return nullptr;
}

std::uint64_t Membership::unproven_hellos() const noexcept
{
  std::uint64_t hellos = m_evicted_hellos;
  for (const Candidate& candidate : m_candidates)
    hellos += candidate.hellos;
  return hellos;
}

} // namespace netprof
