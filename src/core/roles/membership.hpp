#pragma once

// Who belongs to a publisher's run. Anyone can send a hello, so a hello alone admits a
// subscriber only before the measured phase and up to a cap; any other id (a late joiner, a
// restarted process, a forgery) waits as a candidate until it proves itself with what only a
// process taking part in this run can send: an echo of a real probe, or final counters of this
// run. The table never touches an endpoint: it answers with decisions the publisher carries out.

#include "core/measuring/cross_clock_timer.hpp"

#include <netprof/clock.hpp>
#include <netprof/histogram.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace netprof {

// What the publisher learns from one member's echoes.
struct MemberEchoes {
  std::uint64_t count = 0;
  bool any = false;
  std::uint64_t last_sequence = 0;
  std::unique_ptr<Histogram> rtt = std::make_unique<Histogram>();
  CrossClockTimer cross_clock; // from echoes that carry the subscriber's stamps
};

// A member's final counters, once they came. A restart voids them: the new process reports
// afresh.
struct MemberCounters {
  bool received = false;
  bool left_early = false; // it said it was leaving before the end of the test
  wire::SubscriberCounters counters;
  std::optional<wire::FinalAddendum> addendum; // none from a subscriber that predates it
};

struct Member {
  std::uint32_t id = 0;
  bool joined_late = false;
  std::uint64_t probes_before_join = 0;
  // Measured messages sent before its first hello: a late joiner is charged only with the rest.
  std::uint64_t messages_before_join = 0;
  Clock::time_point last_heard{};
  // Which process speaks for this id (wire.hpp, instance tag): a new tag mid-run is a restart.
  std::uint32_t instance = 0;
  std::uint32_t retired_instance = 0; // the one before the last restart
  std::uint32_t restarts = 0;
  Clock::time_point restarted_at{};  // the last restart after the measured phase began
  Clock::time_point restart_taken{}; // when the last restart was believed, in any phase
  // A process still talking under the tag a restart retired, well after the restart: two live
  // processes share this id. Its tag; 0 while none.
  std::uint32_t clashing_instance = 0;
  MemberEchoes echoes;
  MemberCounters final_counters;
  // The sender the transport adopted for it (the last one: a restarted process may listen on a
  // new address); none until adopted. --fanout round-robin sends to it alone.
  PeerHandle peer;
  // --fanout round-robin: the measured messages, and the probes among them, sent to it alone.
  std::uint64_t messages_dealt = 0;
  std::uint64_t probes_dealt = 0;
  // --count-received in a stream: the most distinct measured messages it said it had (its
  // progress messages); a restart voids it.
  std::uint64_t reported_received = 0;
  // Why the last counters sent under this id were refused as impossible (counter_plausibility
  // .hpp); null while none were.
  const char* refused_counters = nullptr;
};

// A hello that has not earned a place: see the top of this file. Hellos never proven count as
// rejected.
struct Candidate {
  std::uint32_t id = 0;
  std::uint32_t instance = 0;
  std::uint64_t hellos = 0;
  std::uint64_t probes_at_hello = 0;   // measured probes sent before its first hello
  std::uint64_t messages_at_hello = 0; // measured messages sent before it
  bool hello_while_measuring = false;
  Clock::time_point first_heard{};
  Clock::time_point last_heard{};
};

// What to do about a hello.
enum class HelloDecision {
  reject,                // count it as rejected; no answer
  acknowledge,           // answer it (a member heard again, or a candidate heard again)
  adopt_and_acknowledge, // start sending to its sender, then answer: it is new
};

// What to do about a message that proves its sender took part (an echo of a real probe, final
// counters of this run).
struct ProofDecision {
  Member* member = nullptr;  // null: reject the message
  bool adopt_sender = false; // a restarted process may listen on a new address
};

class Membership {
public:
  static constexpr std::size_t max_members = 1024;
  // Before the measured phase a hello alone admits a subscriber, up to --subscribers plus this
  // many more (subscribers started beyond --subscribers are normal; a flood of ids is not).
  static constexpr std::size_t members_beyond_expected = 8;
  // Hellos waiting to be proven; the least recently heard gives way when full.
  static constexpr std::size_t max_candidates = 64;
  // A retired process's messages still in flight arrive within microseconds to milliseconds of
  // its replacement's proof; past this it is alive, and two processes share the id.
  static constexpr Nanoseconds retired_instance_grace = std::chrono::milliseconds(500);

  explicit Membership(std::size_t expected_members);

  // `instance` is the hello's tag (0: an untagged, older subscriber); `probes_sent` the
  // measured probes sent so far, which a member that joins now was never asked to echo, and
  // `messages_sent` the measured messages, which it is not charged with as lost.
  HelloDecision on_hello(std::uint32_t id, std::uint32_t instance, std::uint64_t probes_sent,
                         Clock::time_point now, std::uint64_t messages_sent = 0) noexcept;

  // Runs once per echo, so the usual case (a member's known process) is decided here inline.
  ProofDecision on_proof(std::uint32_t id, std::uint32_t instance, Clock::time_point now) noexcept
  {
    Member* member = find(id);
    if (member == nullptr || instance != member->instance)
      return on_unusual_proof(member, id, instance, now);
    member->last_heard = now;
    return {member, false};
  }

  // From here on a hello alone admits nobody, and whoever joins joined late.
  void close_admission() noexcept { m_admission_open = false; }
  // The measured phase began at `start`: admission closes, and restarts are timed from it.
  void start_measuring(Clock::time_point start) noexcept
  {
    close_admission();
    m_measure_start = start;
  }

  Member* find(std::uint32_t id) noexcept
  {
    for (Member& member : m_members)
      if (member.id == id)
        return &member;
    return nullptr;
  }
  std::size_t size() const noexcept { return m_members.size(); }
  // Every member has `round_trips` measured echoes (--count-received); false with no member.
  bool each_echoed(std::uint64_t round_trips) const noexcept
  {
    for (const Member& member : m_members)
      if (member.echoes.count < round_trips)
        return false;
    return !m_members.empty();
  }
  // A member's progress message: `received` distinct measured messages, of the `sent` so far.
  // False (refuse it) from anyone but a member's known process, or for more than was sent.
  bool on_progress(std::uint32_t id, std::uint32_t instance, std::uint64_t received,
                   std::uint64_t sent, Clock::time_point now) noexcept;
  // Whether a progress message came since the last call: only then can each_reported change.
  bool take_progress_news() noexcept { return std::exchange(m_progress_news, false); }
  // Every member said it has `received` measured messages (--count-received in a stream);
  // false with no member.
  bool each_reported(std::uint64_t received) const noexcept
  {
    for (const Member& member : m_members)
      if (member.reported_received < received)
        return false;
    return !m_members.empty();
  }
  std::span<const Member> members() const noexcept { return m_members; }
  // --fanout round-robin: the member the next data message goes to, one further on each call,
  // passing over those not adopted yet and those that said they were leaving; null when there
  // is none to send to.
  Member* next_in_turn() noexcept;
  // An unproven hello may be a late joiner whose final counters are its proof.
  bool awaiting_proof() const noexcept { return !m_candidates.empty(); }
  // Hellos that never earned a place: those of candidates still waiting and of those evicted.
  std::uint64_t unproven_hellos() const noexcept;

private:
  ProofDecision on_unusual_proof(Member* member, std::uint32_t id, std::uint32_t instance,
                                 Clock::time_point now) noexcept;
  bool admits_on_hello() const noexcept;
  Member* add(std::uint32_t id, std::uint64_t probes_sent,
              std::uint64_t messages_sent = 0) noexcept;
  Member* admit_candidate(std::uint32_t id, std::uint32_t instance) noexcept;
  void follow_restart(Member& member, std::uint32_t instance, Clock::time_point now) noexcept;
  Candidate* find_candidate(std::uint32_t id, std::uint32_t instance) noexcept;
  HelloDecision note_candidate(std::uint32_t id, std::uint32_t instance, std::uint64_t probes_sent,
                               Clock::time_point now, std::uint64_t messages_sent) noexcept;
  void forget(const Candidate& candidate) noexcept;
  void heard_retired(Member& member, Clock::time_point now) noexcept;

  std::size_t m_admission_cap;
  bool m_admission_open = true;
  Clock::time_point m_measure_start{};
  std::vector<Member> m_members;       // reserved: pointers to members stay valid
  std::vector<Candidate> m_candidates; // reserved: never allocates
  std::uint64_t m_evicted_hellos = 0;
  std::size_t m_turn = 0; // next_in_turn's next member
  bool m_progress_news = false;
};

} // namespace netprof
