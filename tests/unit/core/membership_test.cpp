// The publisher's subscriber membership, driven alone: no endpoint, no sockets, no threads.
// Each test is one thing a user relies on: who is counted in the report, and that nobody
// becomes a subscriber (or retires one) by naming an id.

#include "core/roles/membership.hpp"
#include "core/roles/result_collection.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace {

using namespace netprof;
using namespace std::chrono_literals;

const Clock::time_point t0 = Clock::time_point{} + 1h;
constexpr std::uint32_t tag_a = 0xaaaa;
constexpr std::uint32_t tag_b = 0xbbbb;

// Subscriber 1 (tag_a) admitted by its hello; the measured phase began at t0.
class MembershipMidRun : public ::testing::Test {
protected:
  void SetUp() override
  {
    ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
    sut.start_measuring(t0);
  }

  Membership sut{1};
};

TEST(Membership, HellosBeforeTheMeasuredPhaseAdmitUpToTheCapAndNoFurther)
{
  Membership sut(2); // --subscribers 2: up to 2 + 8 admitted on a hello alone
  const std::size_t cap = 2 + Membership::members_beyond_expected;
  for (std::uint32_t id = 1; id <= cap; ++id)
    EXPECT_EQ(sut.on_hello(id, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge) << id;

  // One more is answered (it may be real) but is not a subscriber until it proves itself.
  EXPECT_EQ(sut.on_hello(cap + 1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  EXPECT_EQ(sut.size(), cap);
  EXPECT_EQ(sut.find(cap + 1), nullptr);
  EXPECT_TRUE(sut.awaiting_proof());
}

TEST(Membership, EachEchoedNeedsEveryMemberAtTheCountAndAtLeastOneMember)
{
  Membership sut(2);
  EXPECT_FALSE(sut.each_echoed(0)) << "nobody to stop for yet";
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  ASSERT_EQ(sut.on_hello(2, tag_b, 0, t0), HelloDecision::adopt_and_acknowledge);
  sut.find(1)->echoes.count = 10;
  sut.find(2)->echoes.count = 9;
  EXPECT_FALSE(sut.each_echoed(10));
  sut.find(2)->echoes.count = 10;
  EXPECT_TRUE(sut.each_echoed(10));
}

// --count-received in a stream: the phase ends when each member said it has the count, and
// only a member's own process can say so, never of more than was sent.
TEST(Membership, EachReportedNeedsEveryMembersOwnProcessToSayItHasTheCount)
{
  Membership sut(2);
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  ASSERT_EQ(sut.on_hello(2, tag_b, 0, t0), HelloDecision::adopt_and_acknowledge);
  EXPECT_FALSE(sut.take_progress_news());

  EXPECT_TRUE(sut.on_progress(1, tag_a, 10, 12, t0 + 1s));
  EXPECT_TRUE(sut.take_progress_news());
  EXPECT_FALSE(sut.take_progress_news()) << "news is taken once";
  EXPECT_FALSE(sut.each_reported(10)) << "subscriber 2 has said nothing yet";

  EXPECT_FALSE(sut.on_progress(2, tag_a, 10, 12, t0 + 1s)) << "another process's tag";
  EXPECT_FALSE(sut.on_progress(3, tag_b, 10, 12, t0 + 1s)) << "no such member";
  EXPECT_FALSE(sut.on_progress(2, tag_b, 13, 12, t0 + 1s)) << "more than was sent";
  EXPECT_FALSE(sut.take_progress_news());
  EXPECT_FALSE(sut.each_reported(10));

  EXPECT_TRUE(sut.on_progress(2, tag_b, 11, 12, t0 + 2s));
  EXPECT_TRUE(sut.on_progress(1, tag_a, 3, 12, t0 + 2s)) << "a stale report, in flight";
  EXPECT_TRUE(sut.each_reported(10)) << "a stale report takes nothing back";
  EXPECT_EQ(sut.find(2)->last_heard, t0 + 2s);
}

// --fanout round-robin: each data message goes to the next member, so 5 members dealt 100,000
// messages get 20,000 each; one not adopted yet (no peer) or that said it was leaving is passed
// over rather than charged with messages nobody could hear.
TEST(Membership, NextInTurnDealsEvenlyAndPassesOverThoseNobodyCanReach)
{
  Membership sut(5);
  for (std::uint32_t id = 1; id <= 5; ++id) {
    ASSERT_EQ(sut.on_hello(id, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
    sut.find(id)->peer = PeerHandle{id};
  }
  for (int i = 0; i < 100'000; ++i)
    ++sut.next_in_turn()->messages_dealt;
  for (const Member& member : sut.members())
    EXPECT_EQ(member.messages_dealt, 20'000u) << member.id;

  sut.find(2)->peer = PeerHandle{};
  sut.find(4)->final_counters.left_early = true;
  for (int i = 0; i < 30; ++i) {
    const Member* next = sut.next_in_turn();
    ASSERT_NE(next, nullptr);
    EXPECT_TRUE(next->id == 1 || next->id == 3 || next->id == 5) << next->id;
  }
}

TEST(Membership, NextInTurnIsNobodyWithoutAMemberToSendTo)
{
  Membership sut(1);
  EXPECT_EQ(sut.next_in_turn(), nullptr);
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  EXPECT_EQ(sut.next_in_turn(), nullptr); // not adopted by the transport yet
}

// Dealt in turn, a member is charged with what went to it alone, not with everything sent.
TEST(Membership, ARoundRobinMemberIsChargedWithItsShareOnly)
{
  Member member;
  member.id = 1;
  member.messages_dealt = 10'000;
  member.probes_dealt = 40;
  member.final_counters.received = true;
  member.final_counters.counters.received = 9'990;
  member.final_counters.counters.unique = 9'990;
  MeasuredPhase phase{30'000, 120, t0, true};

  const SubscriberResult result = member_result(member, phase);

  EXPECT_EQ(result.messages_owed, 10'000u);
  EXPECT_EQ(result.lost, 10u);
  EXPECT_EQ(result.probes_sent, 40u);
}

// Dealt by the transport, nobody knows a member's share: it is charged with what reached it,
// and owed the probes it echoed, so its own loss is 0 and the run's total tells the loss.
TEST(Membership, AMemberOfATransportDealtRunIsChargedWithWhatReachedIt)
{
  Member member;
  member.id = 1;
  member.final_counters.received = true;
  member.final_counters.counters.received = 9'990;
  member.final_counters.counters.unique = 9'990;
  member.final_counters.counters.probes_echoed = 37;
  MeasuredPhase phase{30'000, 120, t0, true, true};

  const SubscriberResult result = member_result(member, phase);

  EXPECT_EQ(result.messages_owed, 9'990u);
  EXPECT_EQ(result.lost, 0u);
  EXPECT_EQ(result.probes_sent, 37u);
}

TEST(Membership, AMemberSayingHelloAgainIsAnsweredButNotAddedTwice)
{
  Membership sut(1);
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);

  EXPECT_EQ(sut.on_hello(1, tag_a, 0, t0 + 1s), HelloDecision::acknowledge);
  EXPECT_EQ(sut.size(), 1u);
  EXPECT_EQ(sut.find(1)->last_heard, t0 + 1s);
}

TEST_F(MembershipMidRun, AProofFromAnIdThatNeverSaidHelloIsRejected)
{

  const ProofDecision forged = sut.on_proof(7, tag_a, t0 + 1s);
  EXPECT_EQ(forged.member, nullptr);
  EXPECT_EQ(sut.size(), 1u);
}

TEST_F(MembershipMidRun, AHelloAfterTheMeasuredPhaseBeganAdmitsOnlyOnceAnEchoProvesIt)
{

  // 40 probes went out before the late joiner said hello: it was never asked to echo them.
  EXPECT_EQ(sut.on_hello(2, tag_b, 40, t0 + 2s), HelloDecision::adopt_and_acknowledge);
  EXPECT_EQ(sut.find(2), nullptr);

  const ProofDecision proof = sut.on_proof(2, tag_b, t0 + 3s);
  ASSERT_NE(proof.member, nullptr);
  EXPECT_FALSE(proof.adopt_sender); // adopted when its hello was answered
  EXPECT_EQ(proof.member->id, 2u);
  EXPECT_TRUE(proof.member->joined_late);
  EXPECT_EQ(proof.member->probes_before_join, 40u);
  EXPECT_FALSE(sut.awaiting_proof());
  EXPECT_EQ(sut.unproven_hellos(), 0u);
}

TEST(Membership, ACandidateProvesItselfOnlyWithTheTagItSaidHelloWith)
{
  Membership sut(1);
  sut.start_measuring(t0);
  ASSERT_EQ(sut.on_hello(2, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);

  EXPECT_EQ(sut.on_proof(2, tag_b, t0 + 1s).member, nullptr);
  EXPECT_EQ(sut.size(), 0u);
}

TEST_F(MembershipMidRun, AHelloNamingAKnownIdWithANewTagDoesNotDisplaceIt)
{

  // A forgery, or a restart: either way only a proof may retire the process we know.
  EXPECT_EQ(sut.on_hello(1, tag_b, 0, t0 + 1s), HelloDecision::adopt_and_acknowledge);
  const Member* member = sut.find(1);
  ASSERT_NE(member, nullptr);
  EXPECT_EQ(member->instance, tag_a);
  EXPECT_EQ(member->restarts, 0u);
  const ProofDecision known = sut.on_proof(1, tag_a, t0 + 2s);
  EXPECT_EQ(known.member, member);
  EXPECT_FALSE(known.adopt_sender);
}

TEST_F(MembershipMidRun, ARestartProvenByAnEchoRetiresTheOldInstanceAndVoidsItsCounters)
{
  sut.find(1)->final_counters.received = true; // as if the old process had reported
  sut.find(1)->reported_received = 500;

  ASSERT_EQ(sut.on_hello(1, tag_b, 0, t0 + 4s), HelloDecision::adopt_and_acknowledge);
  const ProofDecision restart = sut.on_proof(1, tag_b, t0 + 5s);

  ASSERT_NE(restart.member, nullptr);
  EXPECT_TRUE(restart.adopt_sender); // the new process may listen on a new address
  EXPECT_EQ(restart.member->instance, tag_b);
  EXPECT_EQ(restart.member->restarts, 1u);
  EXPECT_EQ(restart.member->restarted_at, t0 + 4s); // when it said hello, not when it proved it
  EXPECT_FALSE(restart.member->final_counters.received);
  EXPECT_EQ(sut.size(), 1u);
  EXPECT_EQ(restart.member->reported_received, 0u) << "the new process counts afresh";

  // Whatever the replaced process still has in flight is not ours any more.
  EXPECT_EQ(sut.on_proof(1, tag_a, t0 + 6s).member, nullptr);
  EXPECT_EQ(sut.on_hello(1, tag_a, 0, t0 + 6s), HelloDecision::reject);
}

TEST(Membership, ARestartBeforeTheMeasuredPhaseIsCountedButNotTimed)
{
  Membership sut(1);
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  ASSERT_EQ(sut.on_hello(1, tag_b, 0, t0 + 1s), HelloDecision::adopt_and_acknowledge);
  sut.start_measuring(t0 + 2s);

  const ProofDecision restart = sut.on_proof(1, tag_b, t0 + 3s);
  ASSERT_NE(restart.member, nullptr);
  EXPECT_EQ(restart.member->restarts, 1u);
  EXPECT_EQ(restart.member->restarted_at, Clock::time_point{});
}

TEST(Membership, AFloodOfCandidatesEvictsTheLeastRecentlyHeardAndCountsItsHellos)
{
  Membership sut(1);
  sut.start_measuring(t0);
  // A real late joiner says hello first and keeps saying it.
  ASSERT_EQ(sut.on_hello(500, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  for (std::uint32_t i = 0; i + 1 < Membership::max_candidates; ++i)
    sut.on_hello(1000 + i, tag_a, 0, t0 + std::chrono::milliseconds(i + 1));
  EXPECT_EQ(sut.on_hello(500, tag_a, 0, t0 + 1s), HelloDecision::acknowledge);

  // The table is full: the next forged id takes the place of the one heard least recently.
  EXPECT_EQ(sut.on_hello(9999, tag_a, 0, t0 + 2s), HelloDecision::adopt_and_acknowledge);

  EXPECT_EQ(sut.on_proof(1000, tag_a, t0 + 3s).member, nullptr); // evicted: no longer provable
  EXPECT_NE(sut.on_proof(500, tag_a, t0 + 3s).member, nullptr);  // kept: heard recently
  EXPECT_NE(sut.on_proof(1001, tag_a, t0 + 3s).member, nullptr); // the rest are still there
  // Every hello never proven is rejected: the evicted one's, and those of the 61 forged ids
  // and the newest one still waiting.
  EXPECT_EQ(sut.unproven_hellos(), 1u + 61u + 1u);
}

TEST(Membership, ProofRefreshesWhenAMemberWasLastHeard)
{
  Membership sut(1);
  ASSERT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);

  ASSERT_NE(sut.on_proof(1, tag_a, t0 + 7s).member, nullptr);
  EXPECT_EQ(sut.find(1)->last_heard, t0 + 7s);
}

TEST(Membership, AnUntaggedSubscriberIsFollowedByItsFirstTag)
{
  Membership sut(1);
  ASSERT_EQ(sut.on_hello(1, 0, 0, t0), HelloDecision::adopt_and_acknowledge);

  // An older subscriber sends no tag; the first tag heard from the id is the one we know.
  const ProofDecision proof = sut.on_proof(1, tag_a, t0 + 1s);
  ASSERT_NE(proof.member, nullptr);
  EXPECT_FALSE(proof.adopt_sender);
  EXPECT_EQ(proof.member->instance, tag_a);
  EXPECT_EQ(proof.member->restarts, 0u);
}

TEST(Membership, AfterAdmissionClosesAHelloAloneAdmitsNobody)
{
  Membership sut(3);
  sut.close_admission(); // the test is ending: nobody joins on a hello

  EXPECT_EQ(sut.on_hello(1, tag_a, 0, t0), HelloDecision::adopt_and_acknowledge);
  EXPECT_EQ(sut.size(), 0u);
  EXPECT_EQ(sut.unproven_hellos(), 1u);
}

// A member's final counters: `unique` messages, each received once.
SubscriberResult result_with_counters(Member& member, std::uint64_t unique, std::uint64_t sent)
{
  member.final_counters.received = true;
  member.final_counters.counters.received = unique;
  member.final_counters.counters.unique = unique;
  return member_result(member, MeasuredPhase{sent, 8, t0});
}

// Issue 29: a subscriber started 1.8 s into a 3 s run was charged with the 3,600 messages sent
// before it joined ("43.5% lost"), and --max-loss would have failed the run.
TEST_F(MembershipMidRun, ALateJoinerIsChargedOnlyWithWhatWasSentAfterItsHello)
{
  EXPECT_EQ(sut.on_hello(2, tag_b, 4, t0 + 2s, 3600), HelloDecision::adopt_and_acknowledge);
  const ProofDecision proof = sut.on_proof(2, tag_b, t0 + 3s);
  ASSERT_NE(proof.member, nullptr);
  EXPECT_EQ(proof.member->messages_before_join, 3600u);

  // It received every one of the 2,400 sent after it joined.
  const SubscriberResult result = result_with_counters(*proof.member, 2400, 6000);

  EXPECT_EQ(result.lost, 0u);
  EXPECT_EQ(result.joined_at_sequence, 3600u);
  EXPECT_TRUE(result.joined_late);
}

TEST_F(MembershipMidRun, AMemberFromTheStartIsChargedWithEverythingSent)
{
  const SubscriberResult result = result_with_counters(*sut.find(1), 5000, 6000);

  EXPECT_EQ(result.lost, 1000u);
  EXPECT_EQ(result.joined_at_sequence, 0u);
}

} // namespace
