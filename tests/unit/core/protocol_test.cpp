// The core's protocol and accounting, run as a real publisher and subscriber (two threads)
// over an in-memory link that can drop, duplicate and inject messages.

#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

#include <future>
#include <random>

namespace {

using namespace netprof;
using netprof::testing::counted_config;
using netprof::testing::InMemoryFanOut;
using netprof::testing::InMemoryLink;
using netprof::testing::PairOutcome;
using netprof::testing::run_pair;

RunConfig counted_run_config(Role role)
{
  return counted_config(role, 1000, 20);
}

// Forwarding rule: how many copies of each measured data message with this sequence arrive.
netprof::testing::Forwarding measured_data(std::function<int(std::uint64_t)> copies)
{
  return [copies](std::span<const std::byte> message) {
    wire::Header header;
    if (wire::decode_header(message, header) != wire::DecodeError::none ||
        header.kind != wire::MessageKind::data || (header.flags & wire::flags::warmup) != 0)
      return 1;
    return copies(header.sequence);
  };
}

TEST(Protocol, CleanLinkDeliversEverythingAndEchoesEveryProbe)
{
  InMemoryLink sut;
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(outcome.subscriber.status, ExitStatus::passed);
  const RunReport& report = outcome.publisher.report;
  EXPECT_EQ(report.messages_sent, 1000u);
  ASSERT_EQ(report.subscribers.size(), 1u);
  EXPECT_EQ(report.subscribers[0].counters.received, 1000u);
  EXPECT_EQ(report.subscribers[0].lost, 0u);
  EXPECT_GT(report.probes_sent, 0u);
  EXPECT_EQ(report.echoes_received, report.probes_sent);
  EXPECT_EQ(report.rtt.count, report.probes_sent);
  EXPECT_EQ(outcome.subscriber.report.self->counters.warmup_received, 20u);
  EXPECT_EQ(outcome.subscriber.report.run_id, report.run_id);
}

TEST(Protocol, EchoesCarryStampsThatPutOneClockAtOffsetZero)
{
  // Both roles are threads of this process: one clock, so the offset is 0 within its bound.
  InMemoryLink sut;
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  const SubscriberResult& seen = outcome.publisher.report.subscribers.at(0);
  ASSERT_TRUE(seen.cross_clock.has_value());
  const CrossClockLatency& cross = *seen.cross_clock;
  EXPECT_LE(std::abs(cross.offset_ns), cross.bound_ns);
  EXPECT_GE(2 * cross.bound_ns, cross.min_delay_ns);
  EXPECT_EQ(cross.forward.count, seen.echoes);
  EXPECT_EQ(cross.backward.count, seen.echoes);
  EXPECT_GE(cross.forward.p50_ns, -cross.bound_ns);
  EXPECT_GE(cross.backward.p50_ns, -cross.bound_ns);
  EXPECT_EQ(cross.out_of_range, 0u);
}

TEST(Protocol, ThePublisherReportsWhatTheSubscriberProcessCost)
{
  InMemoryLink sut;
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  const SubscriberResult& seen_by_publisher = outcome.publisher.report.subscribers.at(0);
  ASSERT_TRUE(seen_by_publisher.usage.has_value());
  // Both roles are threads of this test process, which has run for a while and holds gtest.
  EXPECT_GT(seen_by_publisher.usage->user_cpu_ns + seen_by_publisher.usage->system_cpu_ns, 0u);
  EXPECT_GT(seen_by_publisher.usage->peak_rss_bytes, 1u << 20);
}

TEST(Protocol, InjectedDropsAreReportedAsLossAndTheSameSeedDropsTheSameShare)
{
  RunConfig subscriber = counted_run_config(Role::subscriber);
  subscriber.drop_percent = 25.0;
  subscriber.drop_seed = 3;
  InMemoryLink first;
  const auto one = run_pair(first, counted_run_config(Role::publisher), subscriber);
  InMemoryLink second;
  const auto two = run_pair(second, counted_run_config(Role::publisher), subscriber);

  const std::uint64_t lost = one.publisher.report.subscribers.at(0).lost;
  // 1000 measured messages (and 20 warm-up ones drawn first) at p = 0.25: sd is about 14.
  EXPECT_GT(lost, 250u - 70u);
  EXPECT_LT(lost, 250u + 70u);
  EXPECT_EQ(two.publisher.report.subscribers.at(0).lost, lost);
  // Every message lost was dropped on purpose, and the publisher is told so.
  EXPECT_EQ(one.publisher.report.subscribers.at(0).injected_drops, lost);
}

TEST(Protocol, LossIsExactlySentMinusReceived)
{
  InMemoryLink sut(
      measured_data([](std::uint64_t sequence) { return sequence % 10 == 3 ? 0 : 1; }));
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  const SubscriberResult& seen_by_publisher = outcome.publisher.report.subscribers.at(0);
  EXPECT_EQ(seen_by_publisher.counters.received, 900u);
  EXPECT_EQ(seen_by_publisher.lost, 100u);
  EXPECT_EQ(seen_by_publisher.counters.gaps, 100u);
  EXPECT_EQ(outcome.subscriber.report.self->lost, 100u);
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed); // loss alone is a warning
  EXPECT_FALSE(outcome.publisher.report.warnings.empty());
}

TEST(Protocol, MaxLossTurnsLossIntoFailure)
{
  InMemoryLink sut(
      measured_data([](std::uint64_t sequence) { return sequence % 10 == 3 ? 0 : 1; }));
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.max_loss_percent = 5.0;
  const auto outcome = run_pair(sut, publisher, counted_run_config(Role::subscriber));

  EXPECT_EQ(outcome.publisher.status, ExitStatus::failed);
  EXPECT_FALSE(outcome.publisher.report.success);
}

TEST(Protocol, DuplicatesAreCountedAndNotMistakenForData)
{
  InMemoryLink sut(
      measured_data([](std::uint64_t sequence) { return sequence % 50 == 0 ? 2 : 1; }));
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  const auto& counters = outcome.publisher.report.subscribers.at(0).counters;
  EXPECT_EQ(counters.duplicates, 20u);
  EXPECT_EQ(counters.unique, 1000u);
  EXPECT_EQ(outcome.publisher.report.subscribers.at(0).lost, 0u);
}

TEST(Protocol, GarbageIsRejectedWithoutTouchingTheFigures)
{
  InMemoryLink sut;
  std::mt19937_64 random(42);
  for (int i = 0; i < 200; ++i) {
    std::vector<std::byte> junk(random() % 100);
    for (auto& b : junk)
      b = static_cast<std::byte>(random());
    sut.to_subscriber->push(junk);
  }
  const auto outcome =
      run_pair(sut, counted_run_config(Role::publisher), counted_run_config(Role::subscriber));

  EXPECT_EQ(outcome.subscriber.report.rejected, 200u);
  EXPECT_EQ(outcome.publisher.report.subscribers.at(0).counters.received, 1000u);
  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
}

TEST(Protocol, PingPongEchoesEachProbeBeforeTheNext)
{
  InMemoryLink sut;
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.mode = Mode::ping_pong;
  publisher.count = 300;
  const auto outcome = run_pair(sut, publisher, counted_run_config(Role::subscriber));

  EXPECT_EQ(outcome.publisher.status, ExitStatus::passed);
  EXPECT_EQ(outcome.publisher.report.probes_sent, 300u);
  EXPECT_EQ(outcome.publisher.report.echoes_received, 300u);
  EXPECT_EQ(outcome.publisher.report.echoes_late, 0u);
}

TEST(Protocol, PublisherWithoutSubscriberGivesUpAfterItsWait)
{
  InMemoryLink sut;
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.wait_seconds = 0.2;
  StopFlag stop;
  LiveCounters live;
  const RoleResult outcome = run_publisher(publisher, sut.publisher, stop, live);

  EXPECT_EQ(outcome.status, ExitStatus::runtime);
  ASSERT_FALSE(outcome.report.problems.empty());
  EXPECT_NE(outcome.report.problems[0].find("subscriber"), std::string::npos);
}

TEST(Protocol, SubscriberWithoutPublisherGivesUpAfterItsWait)
{
  InMemoryLink sut;
  RunConfig subscriber = counted_run_config(Role::subscriber);
  subscriber.wait_seconds = 0.2;
  StopFlag stop;
  LiveCounters live;
  const RoleResult outcome = run_subscriber(subscriber, sut.subscriber, stop, live, Clock::now());

  EXPECT_EQ(outcome.status, ExitStatus::runtime);
  EXPECT_FALSE(outcome.report.end_received);
}

TEST(Protocol, LostEndsLeaveBothSidesFailingWithinTheirBounds)
{
  InMemoryLink sut([](std::span<const std::byte> message) {
    wire::Header header;
    wire::decode_header(message, header);
    return header.kind == wire::MessageKind::end ? 0 : 1;
  });
  RunConfig subscriber = counted_run_config(Role::subscriber);
  subscriber.idle_timeout_seconds = 0.5;
  const auto outcome = run_pair(sut, counted_run_config(Role::publisher), subscriber);

  EXPECT_EQ(outcome.publisher.status, ExitStatus::failed);
  EXPECT_EQ(outcome.subscriber.status, ExitStatus::failed);
  EXPECT_FALSE(outcome.subscriber.report.end_received);
}

TEST(Protocol, InterruptedPublisherStillEndsTheTestForItsSubscribers)
{
  InMemoryLink sut;
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.count.reset();
  publisher.test_seconds = 60;
  publisher.send_hz = 1000;
  StopFlag stop;
  auto interrupter = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request();
  });
  const auto outcome = run_pair(sut, publisher, counted_run_config(Role::subscriber), stop);

  EXPECT_EQ(outcome.publisher.status, ExitStatus::interrupted);
  EXPECT_TRUE(outcome.publisher.report.interrupted);
  EXPECT_TRUE(outcome.subscriber.report.end_received);
  EXPECT_EQ(outcome.subscriber.report.self->counters.received,
            outcome.publisher.report.messages_sent);
}

TEST(Protocol, EverySubscriberIsReportedWithItsOwnLatencyAndTheFanOutSkew)
{
  InMemoryFanOut sut(3);
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.subscribers = 3;
  // Every flag and counter exists before the first thread starts: none may move under it.
  std::vector<StopFlag> stops(3);
  std::vector<LiveCounters> lives(3);
  std::vector<std::future<RoleResult>> subscribers;
  for (std::uint32_t id = 1; id <= 3; ++id) {
    RunConfig subscriber = counted_run_config(Role::subscriber);
    subscriber.id = id;
    subscribers.push_back(std::async(std::launch::async, [&, subscriber, id] {
      return run_subscriber(subscriber, *sut.subscribers[id - 1], stops[id - 1], lives[id - 1],
                            Clock::now());
    }));
  }
  StopFlag stop;
  LiveCounters live;
  const RoleResult outcome = run_publisher(publisher, *sut.publisher, stop, live);
  for (auto& subscriber : subscribers)
    EXPECT_EQ(subscriber.get().status, ExitStatus::passed);

  EXPECT_EQ(outcome.status, ExitStatus::passed);
  ASSERT_EQ(outcome.report.subscribers.size(), 3u);
  for (const SubscriberResult& sub : outcome.report.subscribers) {
    EXPECT_EQ(sub.counters.received, 1000u) << "subscriber " << sub.id;
    EXPECT_EQ(sub.echoes, outcome.report.probes_sent) << "subscriber " << sub.id;
    EXPECT_EQ(sub.rtt.count, outcome.report.probes_sent) << "subscriber " << sub.id;
  }
  EXPECT_EQ(outcome.report.echoes_received, 3 * outcome.report.probes_sent);
  // Every measured probe was sent after all three joined, and all three echoed it.
  EXPECT_EQ(outcome.report.fanout_skew.count, outcome.report.probes_sent);
}

TEST(Protocol, ASubscriberThatLeavesEarlyIsReportedAsSuch)
{
  InMemoryLink sut;
  RunConfig publisher = counted_run_config(Role::publisher);
  publisher.count.reset();
  publisher.test_seconds = 1.0;
  publisher.send_hz = 2000;
  StopFlag subscriber_stop, publisher_stop;
  LiveCounters subscriber_live, publisher_live;
  auto subscriber = std::async(std::launch::async, [&] {
    return run_subscriber(counted_run_config(Role::subscriber), sut.subscriber, subscriber_stop,
                          subscriber_live, Clock::now());
  });
  auto leaver = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    subscriber_stop.request();
  });
  const RoleResult outcome =
      run_publisher(publisher, sut.publisher, publisher_stop, publisher_live);

  EXPECT_EQ(subscriber.get().status, ExitStatus::interrupted);
  EXPECT_EQ(outcome.status, ExitStatus::failed);
  ASSERT_EQ(outcome.report.subscribers.size(), 1u);
  const SubscriberResult& left = outcome.report.subscribers[0];
  EXPECT_TRUE(left.left_early);
  EXPECT_TRUE(left.counters_received);
  EXPECT_GT(left.counters.received, 0u);
  EXPECT_LT(left.counters.received, outcome.report.messages_sent);
  EXPECT_GE(left.last_heard_seconds, 0.0);
}

} // namespace
