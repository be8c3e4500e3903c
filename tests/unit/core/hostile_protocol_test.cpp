// Forged protocol messages (docs/hostile-input.md, "On the wire"): a blind forger knows only a
// subscriber id, or this run's id, which anyone reads from what subscribers send; an on-path
// one reads the publisher's messages too (Snoop). None may add a subscriber, retire the real
// one, or end the test. A hello without a cookie is answered with a challenge alone; anything
// else forged is counted as rejected. Real late joiners still join. Real publisher and subscriber
// loops (threads) over the in-memory link; the forger pushes its messages straight into the link's
// queues.

#include "core/process/local_pair.hpp"
#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <spawn.h>
#include <thread>

extern char** environ;

namespace {

using namespace netprof;
using namespace std::chrono_literals;
using netprof::testing::InMemoryLink;
using namespace netprof::testing;

RunConfig hostile_run_config(Role role)
{
  return paced_config(role, 1.0);
}

std::vector<std::byte> counters_message(std::uint32_t sender, std::uint64_t run_id,
                                        std::uint64_t end_count, std::uint16_t flags = 0)
{
  wire::Header header;
  header.kind = wire::MessageKind::final_counters;
  header.flags = flags;
  header.sender_id = sender;
  header.run_id = run_id;
  header.sequence = end_count;
  auto bytes = message_of(header, wire::final_counters_size);
  wire::encode_counters({}, std::span(bytes).subspan(wire::header_size));
  return bytes;
}

// What a host on the path learns from the publisher's traffic: the run id, the end token its
// acknowledgements carry, and each END.
struct Snoop {
  std::atomic<std::uint64_t> run_id{0};
  std::atomic<std::uint64_t> end_token{0};
  std::atomic<int> ends{0};
  std::atomic<std::uint64_t> end_count{0};
  std::function<void(int end_number, std::uint64_t count)> on_end;

  netprof::testing::Forwarding forwarding()
  {
    return [this](std::span<const std::byte> message) {
      wire::Header header;
      if (wire::decode_header(message, header) == wire::DecodeError::none) {
        run_id.store(header.run_id);
        if (header.kind == wire::MessageKind::hello_ack)
          end_token.store(wire::carried_secret(header));
        if (header.kind == wire::MessageKind::end) {
          end_count.store(header.sequence);
          const int number = ++ends;
          if (on_end)
            on_end(number, header.sequence);
        }
      }
      return 1;
    };
  }
};

// A real subscriber 1 and publisher; `attack` runs once the measured phase is under way.
PairOutcome run_attacked(InMemoryLink& link, const std::function<void()>& attack,
                         RunConfig publisher_config = hostile_run_config(Role::publisher))
{
  RoleThread subscriber, publisher;
  subscriber.start_subscriber(hostile_run_config(Role::subscriber), link.subscriber);
  publisher.start_publisher(publisher_config, link.publisher);
  wait_until_sent(publisher, 400);
  attack();
  return {publisher.result.get(), subscriber.result.get()};
}

// The figures of a run the forger did not touch: both pass, one subscriber, nothing lost.
void expect_untouched(const PairOutcome& pair)
{
  EXPECT_EQ(pair.publisher.status, ExitStatus::passed)
      << ::testing::PrintToString(pair.publisher.report.problems);
  EXPECT_EQ(pair.subscriber.status, ExitStatus::passed)
      << ::testing::PrintToString(pair.subscriber.report.problems);
  const RunReport& report = pair.publisher.report;
  ASSERT_EQ(report.subscribers.size(), 1u);
  const SubscriberResult& seen = report.subscribers[0];
  EXPECT_EQ(seen.id, 1u);
  EXPECT_EQ(seen.outcome, SubscriberOutcome::complete);
  EXPECT_EQ(seen.restarts, 0u);
  EXPECT_FALSE(seen.joined_late);
  EXPECT_EQ(seen.counters.received, report.messages_sent);
  EXPECT_EQ(seen.lost, 0u);
  EXPECT_EQ(report.echoes_received, report.probes_sent);
  ASSERT_TRUE(pair.subscriber.report.self.has_value());
  EXPECT_TRUE(pair.subscriber.report.end_received);
  EXPECT_EQ(pair.subscriber.report.self->counters.received, report.messages_sent);
  EXPECT_EQ(pair.subscriber.report.self->lost, 0u);
}

wire::Header hello_from(std::uint32_t id, std::uint32_t tag = 0, std::uint64_t cookie = 0)
{
  wire::Header hello;
  hello.kind = wire::MessageKind::hello;
  hello.sender_id = id;
  hello.record_count = tag;
  wire::carry_secret(hello, cookie);
  return hello;
}

TEST(HostileProtocol, HelloFloodFromManyIdsMidRunAddsNoSubscriber)
{
  InMemoryLink link;
  const PairOutcome pair = run_attacked(link, [&] {
    for (std::uint32_t id = 100; id < 300; ++id)
      link.to_publisher->push(message_of(hello_from(id, id)));
  });
  expect_untouched(pair);
  // Each is answered with a challenge alone, which the real subscriber ignores.
  EXPECT_EQ(pair.publisher.report.rejected, 0u);
  EXPECT_GE(pair.publisher.report.challenges_sent, 201u);
}

TEST(HostileProtocol, HelloFloodWithMadeUpCookiesIsRejected)
{
  InMemoryLink link;
  const PairOutcome pair = run_attacked(link, [&] {
    for (std::uint32_t id = 100; id < 300; ++id)
      link.to_publisher->push(message_of(hello_from(id, id, 0x5eed0000u + id)));
  });
  expect_untouched(pair);
  EXPECT_EQ(pair.publisher.report.rejected, 200u);
}

TEST(HostileProtocol, HelloFloodFromOneNewIdMidRunAddsNoSubscriber)
{
  InMemoryLink link;
  const PairOutcome pair = run_attacked(link, [&] {
    for (int i = 0; i < 200; ++i)
      link.to_publisher->push(message_of(hello_from(4242)));
  });
  expect_untouched(pair);
  EXPECT_EQ(pair.publisher.report.rejected, 0u);
  EXPECT_GE(pair.publisher.report.challenges_sent, 201u);
}

TEST(HostileProtocol, HellosBeforeTheMeasuredPhaseAdmitOnlyUpToTheCap)
{
  // 50 ids prove their address before the measured phase (--subscribers 1): a proven hello
  // alone admits at most --subscribers plus 8 (fewer if the measured phase begins before all
  // are read); the rest must prove themselves further, never do, and are counted as rejected.
  InMemoryLink link;
  RunConfig config = hostile_run_config(Role::publisher);
  config.test_seconds = 0.2;
  RoleThread publisher;
  publisher.start_publisher(config, link.publisher);
  for (std::uint32_t id = 100; id < 150; ++id)
    ASSERT_TRUE(say_proven_hello(*link.to_publisher, *link.to_subscriber, hello_from(id)));
  const RoleResult outcome = publisher.result.get();

  EXPECT_GE(outcome.report.subscribers.size(), 1u);
  EXPECT_LE(outcome.report.subscribers.size(), 9u);
  EXPECT_EQ(outcome.report.subscribers.size() + outcome.report.rejected, 50u);
  EXPECT_EQ(outcome.status, ExitStatus::failed); // the nine admitted never sent counters
}

TEST(HostileProtocol, FinalCountersFromAnIdThatNeverSaidHelloAreRejected)
{
  // Sent in the ending phase, carrying the publisher's own END count: only the unknown id is
  // wrong with them. Departing counters from another unknown id mid-run, too.
  Snoop snoop;
  InMemoryLink link(snoop.forwarding());
  snoop.on_end = [&](int number, std::uint64_t count) {
    if (number == 1)
      link.to_publisher->push(counters_message(500, snoop.run_id.load(), count));
  };
  const PairOutcome pair = run_attacked(link, [&] {
    link.to_publisher->push(counters_message(501, snoop.run_id.load(), 0, wire::flags::departing));
  });
  expect_untouched(pair);
  EXPECT_EQ(pair.publisher.report.rejected, 2u);
}

TEST(HostileProtocol, PublisherRejectsCountersAnsweringAnEndItDidNotSend)
{
  // The real id, untagged, this run, in the ending phase, but carrying another END count back:
  // they answer a forged END, and must not replace the real counters.
  Snoop snoop;
  InMemoryLink link(snoop.forwarding());
  snoop.on_end = [&](int number, std::uint64_t count) {
    if (number == 3) // the real counters are in by now; these would overwrite them
      link.to_publisher->push(counters_message(1, snoop.run_id.load(), count + 5));
  };
  const PairOutcome pair = run_attacked(link, [&] {
    // Mid-run, with a count the publisher may well reach: still not an answer to its END.
    link.to_publisher->push(counters_message(1, snoop.run_id.load(), 2000));
  });
  expect_untouched(pair);
  EXPECT_GE(snoop.ends.load(), 3);
  EXPECT_EQ(pair.publisher.report.rejected, 2u);
}

TEST(HostileProtocol, EchoesOfRealProbesWithMalformedStampsAreRejected)
{
  // An on-path forger copies real probes into echoes under the real id and tag, but their
  // payloads are not the subscriber's two stamps: 8 bytes, or an echo sent before its probe
  // arrived. Each is rejected before it can become a latency sample; the real echoes still
  // count.
  constexpr int forged_each = 3;
  InMemoryLink* target = nullptr;
  std::atomic<std::uint32_t> tag{0};
  std::atomic<int> forged{0};
  InMemoryLink link([&](std::span<const std::byte> message) {
    wire::Header header;
    if (wire::decode_header(message, header) != wire::DecodeError::none)
      return 1;
    if (header.kind == wire::MessageKind::hello_ack)
      tag.store(wire::instance_tag(header));
    const bool measured_probe = header.kind == wire::MessageKind::data &&
                                (header.flags & wire::flags::probe) != 0 &&
                                (header.flags & wire::flags::warmup) == 0;
    if (measured_probe && target != nullptr && forged.load() < forged_each) {
      ++forged;
      wire::Header echo = header;
      echo.kind = wire::MessageKind::echo;
      echo.sender_id = 1;
      echo.record_count = tag.load();
      target->to_publisher->push(message_of(echo, 8));
      auto backwards = message_of(echo, wire::echo_stamps_size);
      wire::encode_echo_stamps({2'000, 1'000}, std::span(backwards).subspan(wire::header_size));
      target->to_publisher->push(backwards);
    }
    return 1;
  });
  target = &link;
  const PairOutcome pair = run_attacked(link, [] {});
  expect_untouched(pair);
  EXPECT_EQ(forged.load(), forged_each);
  EXPECT_EQ(pair.publisher.report.rejected, 2u * forged_each);
  ASSERT_TRUE(pair.publisher.report.subscribers.at(0).cross_clock.has_value());
}

TEST(HostileProtocol, AHelloNamingTheRealIdWithANewTagIsNotARestart)
{
  InMemoryLink link;
  const PairOutcome pair = run_attacked(link, [&] {
    link.to_publisher->push(message_of(hello_from(1, 0x1234)));
    link.to_publisher->push(message_of(hello_from(1, 0x1234, 0xc00c1e)));
  });
  expect_untouched(pair);
  EXPECT_EQ(pair.publisher.report.rejected, 1u); // the made-up cookie; the other was challenged
}

TEST(HostileProtocol, ALateJoinerIsAdmittedByItsFirstEchoAndReportedAsLate)
{
  InMemoryLink link;
  RunConfig config = hostile_run_config(Role::publisher);
  config.subscribers = 0; // start at once
  RoleThread subscriber, publisher;
  publisher.start_publisher(config, link.publisher);
  wait_until_sent(publisher, 400);
  subscriber.start_subscriber(hostile_run_config(Role::subscriber), link.subscriber);
  const RoleResult pub = publisher.result.get();
  const RoleResult sub = subscriber.result.get();

  ASSERT_EQ(pub.report.subscribers.size(), 1u);
  const SubscriberResult& seen = pub.report.subscribers[0];
  EXPECT_TRUE(seen.joined_late);
  EXPECT_TRUE(seen.counters_received);
  EXPECT_GT(seen.echoes, 0u);
  EXPECT_LT(seen.probes_sent, pub.report.probes_sent); // counted from its join
  EXPECT_EQ(pub.status, ExitStatus::passed);           // a late join is a warning
  EXPECT_TRUE(sub.report.self->joined_late);
  EXPECT_EQ(sub.status, ExitStatus::passed);
  EXPECT_EQ(pub.report.rejected, 0u); // its hello was proven, so not counted
}

TEST(HostileProtocol, ALateJoinerThatEchoedNoProbeIsAdmittedByItsCounters)
{
  InMemoryLink link;
  RunConfig config = hostile_run_config(Role::publisher);
  config.subscribers = 0;
  config.probe_hz = 0.5; // one probe, at the start: none after it joins
  RoleThread subscriber, publisher;
  publisher.start_publisher(config, link.publisher);
  wait_until_sent(publisher, 400);
  subscriber.start_subscriber(hostile_run_config(Role::subscriber), link.subscriber);
  const RoleResult pub = publisher.result.get();
  subscriber.result.get();

  ASSERT_EQ(pub.report.subscribers.size(), 1u);
  EXPECT_TRUE(pub.report.subscribers[0].joined_late);
  EXPECT_TRUE(pub.report.subscribers[0].counters_received);
  EXPECT_EQ(pub.report.subscribers[0].echoes, 0u);
  EXPECT_EQ(pub.report.rejected, 0u);
}

// A real pair, and mid-run an END of this run counting `count`, with the end token the forger
// read (0: none).
PairOutcome forge_end(std::uint64_t count, bool with_token)
{
  Snoop snoop;
  InMemoryLink link(snoop.forwarding());
  return run_attacked(link, [&] {
    wire::Header end;
    end.kind = wire::MessageKind::end;
    end.run_id = snoop.run_id.load();
    wire::carry_secret(end, with_token ? snoop.end_token.load() : 0);
    end.sequence = count;
    link.to_subscriber->push(message_of(end));
  });
}

TEST(HostileProtocol, AnEndWithoutTheEndTokenIsRejectedAtOnce)
{
  // What a forger who sees only what subscribers send can make: the run id, not the token.
  const PairOutcome pair = forge_end(1'000'000'000, false);
  expect_untouched(pair);
  EXPECT_EQ(pair.subscriber.report.rejected, 1u);
  EXPECT_EQ(pair.publisher.report.rejected, 0u); // no counters went back for it
}

TEST(HostileProtocol, AForgedEndMidRunDoesNotEndTheTest)
{
  // An on-path forger, who read the token from an acknowledgement.
  const PairOutcome pair = forge_end(1'000'000'000, true);
  expect_untouched(pair);
  EXPECT_GE(pair.subscriber.report.rejected, 1u);
  // The counters it sent back for the forged END were refused by the publisher.
  EXPECT_EQ(pair.publisher.report.rejected, 1u);
}

TEST(HostileProtocol, AnEndCountingFewerThanWereReceivedIsRejected)
{
  const PairOutcome pair = forge_end(5, true);
  expect_untouched(pair);
  EXPECT_EQ(pair.subscriber.report.rejected, 1u);
  EXPECT_EQ(pair.publisher.report.rejected, 0u); // no counters went back for it
}

TEST(HostileProtocol, AForgedFinalAckMidRunDoesNotEndTheTest)
{
  Snoop snoop;
  InMemoryLink link(snoop.forwarding());
  const PairOutcome pair = run_attacked(link, [&] {
    wire::Header ack;
    ack.kind = wire::MessageKind::final_ack;
    ack.run_id = snoop.run_id.load();
    wire::carry_secret(ack, snoop.end_token.load());
    ack.sequence = 1;
    link.to_subscriber->push(message_of(ack));
  });
  expect_untouched(pair);
  EXPECT_EQ(pair.subscriber.report.rejected, 1u);
}

// A scripted publisher of run 0x5c21 for a real subscriber: acknowledgement (answering the
// subscriber's first hello, whose instance tag it names), ten measured messages, then `ends`
// (and a final_ack if asked), each with the run's end token.
RoleResult scripted_end(const std::vector<std::uint64_t>& ends, bool final_ack)
{
  InMemoryLink link;
  RoleThread subscriber;
  subscriber.start_subscriber(hostile_run_config(Role::subscriber), link.subscriber);
  std::vector<std::byte> said;
  wire::Header hello;
  EXPECT_TRUE(link.to_publisher->pop(said, 5s)) << "the subscriber never said hello";
  EXPECT_EQ(wire::decode_header(said, hello), wire::DecodeError::none);
  wire::Header header;
  header.run_id = 0x5c21;
  header.kind = wire::MessageKind::hello_ack;
  header.sequence = 1;
  header.record_count = wire::instance_tag(hello);
  wire::carry_secret(header, 0x70c3);
  link.to_subscriber->push(message_of(header));
  header.record_count = 0;
  header.kind = wire::MessageKind::data;
  for (std::uint64_t sequence = 0; sequence < 10; ++sequence) {
    header.sequence = sequence;
    link.to_subscriber->push(message_of(header));
  }
  header.kind = wire::MessageKind::end;
  for (std::uint64_t count : ends) {
    header.sequence = count;
    link.to_subscriber->push(message_of(header));
  }
  if (final_ack) {
    header.kind = wire::MessageKind::final_ack;
    header.sequence = 1;
    header.record_count = wire::instance_tag(hello);
    link.to_subscriber->push(message_of(header));
  }
  return subscriber.result.get();
}

TEST(HostileProtocol, TheFirstEndStandsAndALaterDifferentCountIsRejected)
{
  const RoleResult confirmed = scripted_end({10, 2000, 10}, true);
  EXPECT_EQ(confirmed.status, ExitStatus::passed);
  EXPECT_TRUE(confirmed.report.end_received);
  EXPECT_EQ(confirmed.report.self->lost, 0u);
  EXPECT_EQ(confirmed.report.rejected, 1u);

  // Unconfirmed, the disagreement is the verdict: one END was forged, which one is unknown.
  const RoleResult disputed = scripted_end({10, 2000}, false);
  EXPECT_EQ(disputed.status, ExitStatus::failed);
  EXPECT_EQ(disputed.report.self->lost, 0u);
  ASSERT_FALSE(disputed.report.problems.empty());
  EXPECT_NE(disputed.report.problems[0].find("disagreed"), std::string::npos);
}

TEST(HostileProtocol, AnAbsurdRecordCountIsRejectedBeforeAnyReaderIsBuilt)
{
  // Ahead of the first measured data message, one claiming 20 million records in an empty
  // payload: building a reader for it would take seconds and hundreds of MB, and every real
  // message after it would fail to decode against that count.
  netprof::testing::MessageQueue* to_subscriber = nullptr;
  bool forged = false;
  InMemoryLink link([&](std::span<const std::byte> message) {
    wire::Header header;
    if (!forged && wire::decode_header(message, header) == wire::DecodeError::none &&
        header.kind == wire::MessageKind::data && (header.flags & wire::flags::warmup) == 0) {
      forged = true;
      header.flags = 0;
      header.record_count = 20'000'000;
      // Its sequence is the real message's, which then arrives as a duplicate.
      to_subscriber->push(message_of(header));
    }
    return 1;
  });
  to_subscriber = link.to_subscriber.get();
  RunConfig publisher_config = hostile_run_config(Role::publisher);
  publisher_config.payload_size = 256;
  publisher_config.num_vars = 4;
  RoleThread subscriber, publisher;
  subscriber.start_subscriber(hostile_run_config(Role::subscriber), link.subscriber);
  publisher.start_publisher(publisher_config, link.publisher);
  const RoleResult published = publisher.result.get();
  const RoleResult subscribed = subscriber.result.get();
  ASSERT_TRUE(forged);
  ASSERT_TRUE(subscribed.report.self.has_value());
  EXPECT_GE(subscribed.report.rejected, 1u);
  // The real messages' records decoded (all but the one the forgery took the place of): the
  // forged count never became the reader's.
  EXPECT_GE(subscribed.report.self->counters.records_decoded,
            4 * (published.report.messages_sent - 1));
}

pid_t start_child(std::vector<std::string> args)
{
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  return pid;
}

// Polls /proc (bounded) until the child has set SIGTERM to ignored, so the test does not race
// its shell.
bool ignores_sigterm_soon(pid_t pid)
{
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("SigIgn:", 0) == 0 &&
          (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGTERM - 1))) != 0)
        return true;
    std::this_thread::sleep_for(2ms);
  }
  return false;
}

TEST(LocalPair, AChildThatHasNothingLeftToWaitForIsEndedPromptly)
{
  const auto started = std::chrono::steady_clock::now();
  end_child(start_child({"/bin/sleep", "30"}), 5s);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);

  // One that ignores SIGTERM is killed once the grace is over.
  const pid_t stubborn = start_child({"/bin/sh", "-c", "trap '' TERM; exec sleep 30"});
  ASSERT_TRUE(ignores_sigterm_soon(stubborn));
  const auto again = std::chrono::steady_clock::now();
  const int status = end_child(stubborn, 300ms);
  const auto took = std::chrono::steady_clock::now() - again;
  EXPECT_EQ(status, static_cast<int>(ExitStatus::runtime));
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
}

} // namespace
