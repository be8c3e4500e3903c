// The subscriber's collaborators driven alone: no endpoint, no sockets, no threads. Joining
// (the handshake and who an answer is for), EchoResponder (what goes back for a probe),
// FinalExchange (END, final counters, final_ack) and SubscriberRun's counting of data.

#include "core/roles/echo_responder.hpp"
#include "core/roles/final_exchange.hpp"
#include "core/roles/joining.hpp"
#include "core/roles/subscriber_run.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

using namespace netprof;
using namespace std::chrono_literals;

const Clock::time_point t0 = Clock::time_point{} + 1h;
constexpr std::uint32_t our_id = 4;
constexpr std::uint32_t our_tag = 0x1234;
constexpr std::uint64_t run_id = 77;
constexpr std::uint64_t end_token = 0xe4d;

wire::Header from_publisher(wire::MessageKind kind, std::uint64_t sequence, std::uint32_t tag,
                            std::uint64_t secret = 0)
{
  wire::Header header;
  header.kind = kind;
  header.run_id = run_id;
  header.sequence = sequence;
  header.record_count = tag; // the instance tag a publisher's answer names
  wire::carry_secret(header, secret);
  return header;
}

// Before any publisher took us in.
const SubscriberRun& no_run()
{
  static const SubscriberRun run;
  return run;
}

SubscriberRun taken_run()
{
  SubscriberRun run;
  run.start(from_publisher(wire::MessageKind::hello_ack, our_id, our_tag, end_token), {});
  run.acknowledged = true;
  return run;
}

wire::Header data(std::uint64_t sequence, std::uint16_t flags = 0)
{
  wire::Header header;
  header.kind = wire::MessageKind::data;
  header.flags = flags;
  header.run_id = run_id;
  header.sequence = sequence;
  header.payload_length = 100;
  return header;
}

Delivery delivery_of(std::size_t wire_bytes)
{
  Delivery delivery;
  delivery.wire_bytes = wire_bytes;
  return delivery;
}

TEST(Joining, HellosRepeatAtTheHelloIntervalUntilAcknowledged)
{
  Joining sut(our_id, our_tag);
  SubscriberRun run;
  EXPECT_TRUE(sut.hello_due(run, t0));
  EXPECT_FALSE(sut.hello_due(run, t0 + Joining::hello_interval / 2));
  EXPECT_TRUE(sut.hello_due(run, t0 + Joining::hello_interval));

  run.acknowledged = true;
  EXPECT_FALSE(sut.hello_due(run, t0 + 10 * Joining::hello_interval));
  sut.set_seeking(true); // our publisher went silent: ask again
  EXPECT_TRUE(sut.hello_due(run, t0 + 10 * Joining::hello_interval));
}

TEST(Joining, AChallengeToUsIsAnsweredAtOnceWithItsCookie)
{
  Joining sut(our_id, our_tag);
  const ChallengeAnswer answer =
      sut.on_challenge(from_publisher(wire::MessageKind::challenge, our_id, our_tag, 99), no_run());
  EXPECT_TRUE(answer.hello);
  EXPECT_FALSE(answer.adopt_sender);
  const wire::Header hello = sut.hello(t0);
  EXPECT_EQ(hello.run_id, 0u); // "take me into your run"
  EXPECT_EQ(wire::carried_secret(hello), 99u);
  EXPECT_EQ(wire::instance_tag(hello), our_tag);
}

TEST(Joining, AnotherProcesssChallengeIsIgnored)
{
  Joining sut(our_id, our_tag);
  EXPECT_FALSE(
      sut.on_challenge(from_publisher(wire::MessageKind::challenge, our_id, 0x9999, 5), no_run())
          .hello);
  EXPECT_EQ(wire::carried_secret(sut.hello(t0)), 0u);
}

TEST(Joining, OnlyTheFirstInvitationsSenderIsAdopted)
{
  Joining sut(our_id, our_tag);
  const wire::Header invitation = from_publisher(wire::MessageKind::challenge, 0, 0);
  EXPECT_TRUE(sut.on_challenge(invitation, no_run()).adopt_sender);
  sut.publisher_adopted(true);
  const ChallengeAnswer again = sut.on_challenge(invitation, no_run());
  EXPECT_FALSE(again.adopt_sender);
  EXPECT_TRUE(again.hello);
}

TEST(Joining, ANewCookieOnceTakenInTellsOfASecondPublisher)
{
  Joining sut(our_id, our_tag);
  const SubscriberRun run = taken_run();
  EXPECT_TRUE(
      sut.on_challenge(from_publisher(wire::MessageKind::challenge, our_id, our_tag, 8), run)
          .other_publisher);
}

TEST(Joining, AnAcknowledgementOfOurIdWithAnotherTagInOurRunIsAClash)
{
  Joining sut(our_id, our_tag);
  const SubscriberRun run = taken_run();
  EXPECT_FALSE(sut.addressed_to_us(from_publisher(wire::MessageKind::hello_ack, our_id, 0x9), run));
  EXPECT_TRUE(sut.id_clash());
}

TEST(Joining, ASecondPublishersRunIsTakenOnlyWhileSeeking)
{
  Joining sut(our_id, our_tag);
  SubscriberRun run;
  wire::Header ack = from_publisher(wire::MessageKind::hello_ack, our_id, our_tag);
  EXPECT_EQ(sut.take_run(ack, run), RunTaking::first);
  run = taken_run();
  ack.run_id = run_id + 1;
  EXPECT_EQ(sut.take_run(ack, run), RunTaking::other_publisher);
  sut.set_seeking(true);
  EXPECT_EQ(sut.take_run(ack, run), RunTaking::restarted_publisher);
  ack.sequence = our_id + 1; // another subscriber's acknowledgement
  EXPECT_EQ(sut.take_run(ack, run), RunTaking::refused);
}

TEST(EchoResponder, AFullEchoIsAsLongAsTheProbeAndCarriesBothStamps)
{
  EchoResponder sut(1000, 1 << 20);
  wire::Header probe = data(3, wire::flags::probe | wire::flags::full_echo);
  probe.payload_length = 1000;
  // The echo is stamped from the clock when it leaves, so it must arrive no later than now; the
  // fixed t0 (an hour after boot) failed this on any machine up for less than an hour.
  const Clock::time_point arrived = Clock::now();
  const auto echo = sut.answer(probe, our_id, our_tag, arrived);

  wire::Header header;
  ASSERT_EQ(wire::decode_header(echo, header), wire::DecodeError::none);
  EXPECT_EQ(header.kind, wire::MessageKind::echo);
  EXPECT_EQ(header.sender_id, our_id);
  EXPECT_EQ(header.sequence, 3u);
  EXPECT_EQ(echo.size(), wire::header_size + wire::full_echo_payload_size(1000));
  wire::EchoStamps stamps;
  ASSERT_TRUE(
      wire::decode_echo_stamps(echo.subspan(wire::header_size, wire::echo_stamps_size), stamps));
  EXPECT_EQ(stamps.arrived_ns, to_wire_ns(arrived));
  EXPECT_GE(stamps.echoed_ns, stamps.arrived_ns);
}

TEST(EchoResponder, AProbeLargerThanTheRoomMadeGetsTheRecordEcho)
{
  EchoResponder sut(100, 1 << 20);
  wire::Header probe = data(3, wire::flags::probe | wire::flags::full_echo);
  probe.payload_length = 5000;
  EXPECT_EQ(sut.answer(probe, our_id, our_tag, t0).size(),
            wire::header_size + wire::echo_stamps_size);

  sut.make_room_for(5000); // the run's -s, from its description
  EXPECT_EQ(sut.answer(probe, our_id, our_tag, t0).size(),
            wire::header_size + wire::full_echo_payload_size(5000));
}

TEST(FinalExchange, AnEndWithoutTheRunsTokenIsRefused)
{
  const ControlAuthentication keyless({});
  FinalExchange sut(keyless);
  SubscriberRun run = taken_run();
  EXPECT_EQ(sut.on_end(from_publisher(wire::MessageKind::end, 10, 0, end_token + 1), run, t0),
            EndTaking::refused);
  EXPECT_FALSE(run.end_received);
}

TEST(FinalExchange, TwoDisagreeingEndsLeaveTheFirstStandingAndAreCounted)
{
  const ControlAuthentication keyless({});
  FinalExchange sut(keyless);
  SubscriberRun run = taken_run();
  ASSERT_EQ(sut.on_end(from_publisher(wire::MessageKind::end, 10, 0, end_token), run, t0),
            EndTaking::taken);
  EXPECT_EQ(sut.on_end(from_publisher(wire::MessageKind::end, 12, 0, end_token), run, t0),
            EndTaking::refused);
  EXPECT_EQ(run.publisher_sent, 10u);
  EXPECT_EQ(run.conflicting_ends, 1u);
  EXPECT_EQ(run.conflicting_count, 12u);
}

TEST(FinalExchange, AnEndThatDataFollowedIsRestoredWhenItComesAgain)
{
  const ControlAuthentication keyless({});
  FinalExchange sut(keyless);
  SubscriberRun run = taken_run();
  const wire::Header end = from_publisher(wire::MessageKind::end, 10, 0, end_token);
  ASSERT_EQ(sut.on_end(end, run, t0), EndTaking::taken);
  EXPECT_EQ(run.count_data(data(9), delivery_of(100), t0).refused, 1u); // overtaken by data
  EXPECT_FALSE(run.end_received);
  EXPECT_EQ(sut.on_end(end, run, t0 + 1ms), EndTaking::restored);
  EXPECT_TRUE(run.end_received);
}

TEST(FinalExchange, TheFinalCountersCarryTheRunsFiguresAndTheEndsCount)
{
  const ControlAuthentication keyless({});
  FinalExchange sut(keyless);
  const Joining joining(our_id, our_tag);
  SubscriberRun run = taken_run();
  run.count_data(data(0), delivery_of(120), t0);
  ASSERT_EQ(sut.on_end(from_publisher(wire::MessageKind::end, 1, 0, end_token), run, t0),
            EndTaking::taken);

  const auto message = sut.counters(run, joining, 5, {}, 0, t0);
  wire::Header header;
  ASSERT_EQ(wire::decode_header(message, header), wire::DecodeError::none);
  EXPECT_EQ(header.kind, wire::MessageKind::final_counters);
  EXPECT_EQ(header.sequence, 1u);
  EXPECT_EQ(header.run_id, run_id);
  wire::SubscriberCounters counters;
  ASSERT_TRUE(wire::decode_counters(message.subspan(wire::header_size, wire::final_counters_size),
                                    counters));
  EXPECT_EQ(counters.received, 1u);
  EXPECT_EQ(counters.wire_bytes, 120u);
  EXPECT_EQ(counters.rejected, 5u);
}

TEST(FinalExchange, AFinalAckEndsTheRunOnlyWithAnEndStanding)
{
  const ControlAuthentication keyless({});
  FinalExchange sut(keyless);
  Joining joining(our_id, our_tag);
  SubscriberRun run = taken_run();
  const wire::Header ack = from_publisher(wire::MessageKind::final_ack, our_id, our_tag, end_token);
  EXPECT_EQ(sut.on_final_ack(ack, run, joining), FinalAckTaking::refused);
  EXPECT_EQ(
      sut.on_final_ack(from_publisher(wire::MessageKind::final_ack, our_id + 1, 1), run, joining),
      FinalAckTaking::not_ours);
  ASSERT_EQ(sut.on_end(from_publisher(wire::MessageKind::end, 10, 0, end_token), run, t0),
            EndTaking::taken);
  EXPECT_EQ(sut.on_final_ack(ack, run, joining), FinalAckTaking::accepted);
  EXPECT_TRUE(run.final_acknowledged);
}

TEST(SubscriberRunCounting, WarmUpIsCountedApartFromTheMeasuredMessages)
{
  SubscriberRun run = taken_run();
  EXPECT_FALSE(run.count_data(data(0, wire::flags::warmup), delivery_of(100), t0).measured);
  const DataCounted first = run.count_data(data(0), delivery_of(100), t0 + 1ms);
  EXPECT_TRUE(first.measured);
  EXPECT_TRUE(first.first_measured);
  EXPECT_FALSE(run.count_data(data(1), delivery_of(100), t0 + 2ms).first_measured);
  EXPECT_EQ(run.tally.warmup_received, 1u);
  EXPECT_EQ(run.sequences.received(), 2u);
  EXPECT_EQ(run.tally.payload_bytes, 200u);
}

TEST(SubscriberRunCounting, AForgedRecordCountTooLargeForThePayloadIsRefused)
{
  SubscriberRun run = taken_run();
  wire::Header forged = data(0);
  forged.record_count = 1'000'000;
  std::vector<std::byte> bytes(wire::header_size + forged.payload_length);
  Delivery delivery = delivery_of(bytes.size());
  delivery.bytes = bytes;
  EXPECT_EQ(run.count_data(forged, delivery, t0).refused, 1u);
  EXPECT_EQ(run.records, nullptr);
}

} // namespace
