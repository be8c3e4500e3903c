// What each side reports when its peer fails: killed mid-run, restarted mid-run, or a stale
// message of another run arrives. Real publisher and subscriber loops (threads) over the
// in-memory link; a "kill" severs a role's endpoint, so its goodbyes are never heard.

#include "core/roles/membership.hpp"
#include "core/roles/publisher.hpp"
#include "core/roles/subscriber.hpp"
#include "in_memory_link.hpp"
#include "role_thread.hpp"
#include "severable_endpoint.hpp"

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace {

using namespace netprof;
using namespace std::chrono_literals;
using netprof::testing::InMemoryLink;
using netprof::testing::SeverableEndpoint;
using namespace netprof::testing;

RunConfig fault_config(Role role)
{
  return paced_config(role, 1.5);
}

TEST(Faults, SubscriberKilledMidRunIsReportedAsVanished)
{
  InMemoryLink link;
  SeverableEndpoint subscriber_end(link.subscriber);
  RoleThread subscriber, publisher;
  subscriber.start_subscriber(fault_config(Role::subscriber), subscriber_end);
  publisher.start_publisher(fault_config(Role::publisher), link.publisher);
  wait_until_sent(publisher, 400);
  subscriber.kill(subscriber_end);
  const RoleResult outcome = publisher.result.get();

  EXPECT_EQ(outcome.status, ExitStatus::failed);
  ASSERT_EQ(outcome.report.subscribers.size(), 1u);
  const SubscriberResult& sub = outcome.report.subscribers[0];
  EXPECT_EQ(sub.outcome, SubscriberOutcome::vanished);
  EXPECT_FALSE(sub.counters_received);
  EXPECT_GE(sub.last_heard_seconds, 0.0);
  EXPECT_LT(sub.last_heard_seconds, outcome.report.measured_seconds);
  ASSERT_FALSE(outcome.report.problems.empty());
  EXPECT_NE(outcome.report.problems[0].find("vanished"), std::string::npos);
}

TEST(Faults, PublisherKilledMidRunLeavesThePartialSubscriberFailingAfterItsIdleTimeout)
{
  InMemoryLink link;
  SeverableEndpoint publisher_end(link.publisher);
  RunConfig subscriber_config = fault_config(Role::subscriber);
  subscriber_config.idle_timeout_seconds = 0.6;
  RoleThread subscriber, publisher;
  subscriber.start_subscriber(subscriber_config, link.subscriber);
  publisher.start_publisher(fault_config(Role::publisher), publisher_end);
  wait_until_sent(publisher, 400);
  const auto killed = std::chrono::steady_clock::now();
  publisher.kill(publisher_end);
  const RoleResult outcome = subscriber.result.get();
  const auto took = std::chrono::steady_clock::now() - killed;

  EXPECT_EQ(outcome.status, ExitStatus::failed);
  EXPECT_EQ(outcome.report.ended_by, RunEnding::publisher_silent);
  EXPECT_FALSE(outcome.report.end_received);
  EXPECT_GT(outcome.report.self->counters.received, 0u);
  EXPECT_TRUE(outcome.report.abandoned_runs.empty());
  EXPECT_GE(took, 550ms);
  EXPECT_LT(took, 3s);
}

TEST(Faults, RestartedSubscriberIsReportedAsRestartedNotAsACleanFigure)
{
  InMemoryLink link;
  SeverableEndpoint first_end(link.subscriber);
  RoleThread first, second, publisher;
  first.start_subscriber(fault_config(Role::subscriber), first_end);
  publisher.start_publisher(fault_config(Role::publisher), link.publisher);
  wait_until_sent(publisher, 600);
  first.kill(first_end);
  // The same id, a new process: it reads the same inbox and says hello with a new instance.
  second.start_subscriber(fault_config(Role::subscriber), link.subscriber);
  const RoleResult outcome = publisher.result.get();
  const RoleResult restarted = second.result.get();

  EXPECT_EQ(outcome.status, ExitStatus::failed);
  ASSERT_EQ(outcome.report.subscribers.size(), 1u);
  const SubscriberResult& sub = outcome.report.subscribers[0];
  EXPECT_EQ(sub.outcome, SubscriberOutcome::restarted);
  EXPECT_EQ(sub.restarts, 1u);
  EXPECT_GT(sub.restarted_seconds, 0.0);
  EXPECT_TRUE(sub.counters_received);
  // The counters are the new process's: fewer than were sent, and the report says why.
  EXPECT_GT(sub.counters.received, 0u);
  EXPECT_LT(sub.counters.received, outcome.report.messages_sent);
  ASSERT_FALSE(outcome.report.problems.empty());
  EXPECT_NE(outcome.report.problems[0].find("restarted"), std::string::npos);

  // The new process itself saw a late join into a run that ended properly.
  EXPECT_EQ(restarted.report.run_id, outcome.report.run_id);
  EXPECT_TRUE(restarted.report.end_received);
  EXPECT_TRUE(restarted.report.self->joined_late);
  EXPECT_EQ(restarted.report.self->counters.received, sub.counters.received);
}

TEST(Faults, RestartedPublisherTakesTheSubscriberIntoItsNewRun)
{
  InMemoryLink link;
  SeverableEndpoint first_end(link.publisher);
  RoleThread subscriber, first, second;
  subscriber.start_subscriber(fault_config(Role::subscriber), link.subscriber);
  first.start_publisher(fault_config(Role::publisher), first_end);
  wait_until_sent(first, 400);
  const RoleResult killed = first.kill(first_end);
  RunConfig again = fault_config(Role::publisher);
  again.test_seconds = 0.5;
  second.start_publisher(again, link.publisher);
  const RoleResult renewed = second.result.get();
  const RoleResult outcome = subscriber.result.get();

  EXPECT_EQ(renewed.status, ExitStatus::passed);
  ASSERT_EQ(renewed.report.subscribers.size(), 1u);
  EXPECT_EQ(renewed.report.subscribers[0].counters.received, renewed.report.messages_sent);

  EXPECT_EQ(outcome.status, ExitStatus::passed);
  EXPECT_EQ(outcome.report.run_id, renewed.report.run_id);
  EXPECT_EQ(outcome.report.ended_by, RunEnding::end);
  EXPECT_EQ(outcome.report.self->counters.received, renewed.report.messages_sent);
  ASSERT_EQ(outcome.report.abandoned_runs.size(), 1u);
  const AbandonedRun& abandoned = outcome.report.abandoned_runs[0];
  EXPECT_EQ(abandoned.run_id, killed.report.run_id);
  EXPECT_GT(abandoned.figures.counters.received, 0u);
  EXPECT_LE(abandoned.figures.counters.received, killed.report.messages_sent);
  ASSERT_FALSE(outcome.report.warnings.empty());
  EXPECT_NE(outcome.report.warnings[0].find("the publisher restarted"), std::string::npos);
}

TEST(Faults, StaleTrafficOfAnotherRunDoesNotCaptureANewSubscriber)
{
  InMemoryLink link;
  // Left in flight by some earlier run: data, an END, and an acknowledgement for another id.
  wire::Header stale;
  stale.run_id = 0x57a1e;
  stale.kind = wire::MessageKind::data;
  stale.sequence = 77;
  link.to_subscriber->push(message_of(stale));
  stale.kind = wire::MessageKind::end;
  stale.sequence = 1000;
  link.to_subscriber->push(message_of(stale));
  stale.kind = wire::MessageKind::hello_ack;
  stale.sequence = 9;
  link.to_subscriber->push(message_of(stale));

  RoleThread subscriber, publisher;
  RunConfig publisher_config = fault_config(Role::publisher);
  publisher_config.test_seconds = 0.5;
  subscriber.start_subscriber(fault_config(Role::subscriber), link.subscriber);
  publisher.start_publisher(publisher_config, link.publisher);
  const RoleResult pub = publisher.result.get();
  const RoleResult sub = subscriber.result.get();

  EXPECT_EQ(pub.status, ExitStatus::passed);
  EXPECT_EQ(sub.status, ExitStatus::passed);
  EXPECT_EQ(sub.report.run_id, pub.report.run_id);
  EXPECT_EQ(sub.report.rejected, 3u);
  EXPECT_EQ(sub.report.self->counters.received, pub.report.messages_sent);
  EXPECT_TRUE(sub.report.abandoned_runs.empty());
}

TEST(Faults, AStaleAcknowledgementForUsHealsWithoutAnAbandonedRun)
{
  // A publisher of an earlier run acknowledged this id just before it died. The subscriber
  // takes that run (nothing tells them apart), hears nothing more of it, looks for a
  // publisher again and joins the live one, missing at most the first half second.
  InMemoryLink link;
  wire::Header stale;
  stale.run_id = 0x57a1e;
  stale.kind = wire::MessageKind::hello_ack;
  stale.sequence = 1;
  link.to_subscriber->push(message_of(stale));

  RoleThread subscriber, publisher;
  subscriber.start_subscriber(fault_config(Role::subscriber), link.subscriber);
  publisher.start_publisher(fault_config(Role::publisher), link.publisher);
  const RoleResult pub = publisher.result.get();
  const RoleResult sub = subscriber.result.get();

  EXPECT_EQ(sub.report.run_id, pub.report.run_id);
  EXPECT_TRUE(sub.report.end_received);
  EXPECT_TRUE(sub.report.abandoned_runs.empty()); // nothing of the stale run ever arrived
  EXPECT_GT(sub.report.self->counters.received, pub.report.messages_sent / 2);
  ASSERT_EQ(pub.report.subscribers.size(), 1u);
  EXPECT_TRUE(pub.report.subscribers[0].counters_received);
  EXPECT_EQ(pub.report.subscribers[0].restarts, 0u);
}

// A scripted subscriber's echo of the first measured probe it finds in what the publisher sent.
void echo_first_probe(InMemoryLink& link, std::uint32_t id, std::uint32_t tag)
{
  std::vector<std::byte> sent;
  wire::Header probe;
  do {
    ASSERT_TRUE(link.to_subscriber->pop(sent, 5s)) << "no measured probe was sent";
    ASSERT_EQ(wire::decode_header(sent, probe), wire::DecodeError::none);
  } while (probe.kind != wire::MessageKind::data || (probe.flags & wire::flags::probe) == 0);
  wire::Header echo = probe;
  echo.kind = wire::MessageKind::echo;
  echo.sender_id = id;
  echo.record_count = tag;
  link.to_publisher->push(message_of(echo));
}

// Starts a publisher of `seconds` whose subscriber 1 is scripted: instance A (tag 0xAAAA)
// proves its address, then, once data flows, instance B (0xBBBB) does and echoes a real probe,
// which takes the id over. Returns A's proven hello, for saying it again.
wire::Header restart_as_b(InMemoryLink& link, RoleThread& publisher, double seconds)
{
  RunConfig publisher_config = fault_config(Role::publisher);
  publisher_config.test_seconds = seconds;
  publisher_config.warmup_count = 0;
  wire::Header hello;
  hello.sender_id = 1;
  hello.record_count = 0xAAAA;
  publisher.start_publisher(publisher_config, link.publisher);
  const auto hello_a = say_proven_hello(*link.to_publisher, *link.to_subscriber, hello);
  EXPECT_TRUE(hello_a) << "instance A was never challenged";
  wait_until_sent(publisher, 100);
  hello.record_count = 0xBBBB;
  EXPECT_TRUE(say_proven_hello(*link.to_publisher, *link.to_subscriber, hello));
  echo_first_probe(link, 1, 0xBBBB);
  return hello_a.value_or(hello);
}

TEST(Faults, MessagesFromAReplacedInstanceAreRejected)
{
  // A scripted subscriber id 1: instance A says hello, then instance B (a restart) says hello
  // and echoes a real probe, which proves it took part (a hello alone proves nothing: see
  // HostileProtocol.AHelloNamingTheRealIdWithANewTagIsNotARestart); then late hellos from A
  // arrive: they neither count as another restart nor switch back to A.
  InMemoryLink link;
  RoleThread publisher;
  const wire::Header hello_a = restart_as_b(link, publisher, 0.3);
  // Still in flight from the replaced process.
  link.to_publisher->push(message_of(hello_a));
  link.to_publisher->push(message_of(hello_a));
  const RoleResult outcome = publisher.result.get();

  ASSERT_EQ(outcome.report.subscribers.size(), 1u);
  const SubscriberResult& sub = outcome.report.subscribers[0];
  EXPECT_EQ(sub.restarts, 1u);
  EXPECT_GT(sub.restarted_seconds, 0.0);
  EXPECT_EQ(sub.outcome, SubscriberOutcome::vanished); // neither instance sent counters
  EXPECT_FALSE(sub.id_clash);                          // A's hellos came at once: in flight
  EXPECT_EQ(outcome.report.rejected, 2u);
  EXPECT_EQ(outcome.status, ExitStatus::failed);
}

TEST(Faults, TwoLiveProcessesWithOneIdAreNamedAsAClashNotARestart)
{
  // As above, but A goes on saying hello long after B took the id over: A is alive, so the
  // id is shared by two processes, which the verdict names.
  InMemoryLink link;
  RoleThread publisher;
  const wire::Header hello_a = restart_as_b(link, publisher, 1.5);
  std::this_thread::sleep_for(Membership::retired_instance_grace + 100ms);
  link.to_publisher->push(message_of(hello_a));
  const RoleResult outcome = publisher.result.get();

  ASSERT_EQ(outcome.report.subscribers.size(), 1u);
  EXPECT_TRUE(outcome.report.subscribers[0].id_clash);
  EXPECT_EQ(outcome.status, ExitStatus::failed);
  bool named = false;
  for (const std::string& problem : outcome.report.problems)
    named = named || problem.find("two live processes use -i 1") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(outcome.report.problems);
}

} // namespace
