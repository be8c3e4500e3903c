// The contract every transport must pass. It runs over every entry that
// register_builtin_transports() adds, so a new transport is covered by adding its one line
// there. The tests only use the seam (registry.hpp, transport.hpp): a publisher/subscriber
// pair is built from the transport's own local_pair_arguments(), as the local pair does.
// Every hook of Endpoint is exercised (send and its outcome, flush, receive, reply either way,
// facts), and each optional interface an endpoint implements (RoomWaiter, PayloadKeeper).
//
// Nothing may hang: every loop is bounded by a steady_clock deadline, and every receive has a
// short timeout. No sleep stands in for an assertion.

#include <netprof/config.hpp>
#include <netprof/errors.hpp>
#include <netprof/registry.hpp>

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace netprof {

// gtest prints parameters in failure messages; the name is what identifies a transport.
void PrintTo(const TransportDescriptor& entry, std::ostream* out)
{
  *out << entry.name;
}

} // namespace netprof

namespace {

using netprof::testing::adopt;
using netprof::testing::CollectingSink;

using namespace std::chrono_literals;
using netprof::Clock;
using netprof::Endpoint;
using netprof::Nanoseconds;
using netprof::PeerFate;
using netprof::ReceiveResult;
using netprof::SendCause;
using netprof::SendOutcome;
using netprof::SendResult;
using netprof::TransportDescriptor;
using netprof::testing::PlannedTransport;

using Bytes = std::vector<std::byte>;

constexpr auto test_deadline = 5s;
constexpr auto poll_timeout = 10ms;
constexpr std::size_t queue_length = std::size_t{1} << 20;

std::vector<TransportDescriptor> builtin_transports()
{
  netprof::TransportRegistry registry;
  netprof::register_builtin_transports(registry);
  return registry.entries();
}

// Byte i depends on the seed and on i, so a shifted, truncated or stale buffer shows up.
Bytes pattern(std::size_t size, std::uint8_t seed)
{
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  }
  return bytes;
}

Bytes indexed_message(std::uint32_t index)
{
  Bytes bytes = pattern(64, 7);
  for (std::size_t i = 0; i < 4; ++i) {
    bytes[i] = static_cast<std::byte>((index >> (8 * i)) & 0xff);
  }
  return bytes;
}

std::uint32_t index_of(const Bytes& message)
{
  std::uint32_t index = 0;
  for (std::size_t i = 0; i < 4 && i < message.size(); ++i) {
    index |= static_cast<std::uint32_t>(message[i]) << (8 * i);
  }
  return index;
}

// Echoes from inside on_message, as a subscriber echoes latency probes.
class EchoSink final : public netprof::MessageSink {
public:
  explicit EchoSink(Endpoint& endpoint) : m_endpoint(endpoint) {}

  void on_message(const netprof::Delivery& delivery) noexcept override
  {
    if (!netprof::testing::is_adoption_note(delivery.bytes))
      results.push_back(m_endpoint.send(delivery.bytes).result);
  }

  std::vector<SendResult> results;

private:
  Endpoint& m_endpoint;
};

// Keeps receiving until `count` messages are in or the deadline passes.
bool receive_until(Endpoint& endpoint, CollectingSink& sink, std::size_t count,
                   Clock::time_point deadline, Nanoseconds wait = poll_timeout)
{
  while (sink.messages.size() < count && Clock::now() < deadline) {
    if (endpoint.receive(sink, wait) == ReceiveResult::failed) {
      return false;
    }
  }
  return sink.messages.size() >= count;
}

// What every delivery record must say, whatever the transport: it took at least one datagram,
// and at least its own bytes on the wire.
void expect_sound_records(const CollectingSink& sink)
{
  ASSERT_EQ(sink.deliveries.size(), sink.messages.size());
  for (std::size_t i = 0; i < sink.deliveries.size(); ++i) {
    const netprof::testing::KeptDelivery& delivery = sink.deliveries[i];
    EXPECT_GE(delivery.datagrams, 1u) << "delivery " << i;
    EXPECT_GE(delivery.wire_bytes, delivery.size) << "delivery " << i;
    EXPECT_EQ(delivery.size, sink.messages[i].size()) << "delivery " << i;
  }
}

// A wait of `timeout` on an endpoint nothing is sent to lasts that long, and not forever.
void expect_idle_wait_lasts(Endpoint& endpoint, Nanoseconds timeout)
{
  CollectingSink sink;
  const auto start = Clock::now();
  const ReceiveResult result = endpoint.receive(sink, timeout);
  const auto elapsed = Clock::now() - start;

  EXPECT_EQ(result, ReceiveResult::timed_out);
  EXPECT_GE(elapsed, timeout);
  EXPECT_LT(elapsed, 3s) << "the timeout was ignored";
  EXPECT_TRUE(sink.messages.empty());
}

// Nothing arrives within a short wait.
bool stays_quiet(Endpoint& endpoint)
{
  CollectingSink sink;
  return endpoint.receive(sink, 50ms) != ReceiveResult::received && sink.messages.empty();
}

// back_pressured means "not sent, try again"; anything else is the answer.
SendResult send_until_taken(Endpoint& endpoint, const Bytes& message, Clock::time_point deadline)
{
  SendResult result = endpoint.send(message).result;
  while (result == SendResult::back_pressured && Clock::now() < deadline) {
    result = endpoint.send(message).result;
  }
  return result;
}

// Sends until the receiver has the message (in `sink`), trying again every 200 ms: a medium
// that reaches whoever is connected at the time (nng's pub0) drops what it sends before the
// subscriber's connection is registered on its own side, which on a loaded host can come after
// the subscriber's first message has crossed the back channel. The core's hello, sent until
// answered, rides this out the same way.
// The receiver waits `wait` at a time.
bool send_until_heard(Endpoint& sender, Endpoint& receiver, CollectingSink& sink,
                      const Bytes& message, Clock::time_point deadline,
                      Nanoseconds wait = poll_timeout)
{
  while (sink.messages.empty() && Clock::now() < deadline) {
    if (send_until_taken(sender, message, deadline) != SendResult::sent ||
        sender.flush().result != SendResult::sent)
      return false;
    receive_until(receiver, sink, 1, std::min(deadline, Clock::now() + 200ms), wait);
  }
  return !sink.messages.empty();
}

// What a local pair starts besides its members (iceoryx's RouDi, unless one runs; a broker
// at the port its plan picked), as the local pair does, but once per transport and publisher
// arguments for the whole binary (RouDi takes a second or more to start, and later plans find it
// running); stopped when the binary exits, after every endpoint has closed.
void start_pair_service_once(const netprof::TransportPlan& plan, const std::string& name)
{
  static std::map<std::string, std::unique_ptr<netprof::PairService>> services;
  std::string key = name;
  for (const std::string& argument : plan.local_pair.publisher)
    key += " " + argument;
  if (const auto [kept, added] = services.try_emplace(key); added)
    kept->second = plan.start_pair_service();
}

class TransportContract : public ::testing::TestWithParam<TransportDescriptor> {
protected:
  void SetUp() override
  {
    const netprof::TransportPlan pair =
        PlannedTransport(GetParam(), {}).plan(netprof::PlanRole::local_pair);
    start_pair_service_once(pair, GetParam().name);
    const netprof::LocalPairArguments arguments = pair.local_pair.pair();
    m_publisher_transport = netprof::testing::planned(GetParam(), arguments.publisher);
    m_subscriber_transport = netprof::testing::planned(GetParam(), arguments.subscriber);

    // The publisher first: a transport that creates a shared medium does so on this side.
    publisher = m_publisher_transport->open({netprof::Role::publisher, 0, queue_length});
    subscriber = m_subscriber_transport->open({netprof::Role::subscriber, 1, queue_length});
    ASSERT_NE(publisher, nullptr);
    ASSERT_NE(subscriber, nullptr);
  }

  // What a subscriber's hello does: only the subscriber knows the other side at first, so it
  // speaks first and the publisher adopts the sender. Media that reach everyone ignore that.
  void connect()
  {
    const netprof::PeerHandle sender = hello_from_subscriber();
    ASSERT_TRUE(adopt(*publisher, sender));
    subscriber_handle = sender;
    // The subscriber reads the adoption note, as the core reads its acknowledgement, so the
    // note takes no room in a small queue (mq) from what the test sends next.
    NoteSink note;
    const auto deadline = Clock::now() + test_deadline;
    while (!note.seen && Clock::now() < deadline)
      ASSERT_NE(subscriber->receive(note, poll_timeout), ReceiveResult::failed);
  }

  // Notices the adoption note; anything else arriving first is a test's own to send again.
  struct NoteSink final : netprof::MessageSink {
    void on_message(const netprof::Delivery& delivery) noexcept override
    {
      seen = seen || netprof::testing::is_adoption_note(delivery.bytes);
    }
    bool seen = false;
  };

  // The subscriber's hello, as the publisher names its sender.
  netprof::PeerHandle hello_from_subscriber()
  {
    const Bytes hello = pattern(16, 1);
    const auto deadline = Clock::now() + test_deadline;
    EXPECT_EQ(send_until_taken(*subscriber, hello, deadline), SendResult::sent);
    CollectingSink sink;
    EXPECT_TRUE(receive_until(*publisher, sink, 1, deadline)) << "the hello never arrived";
    EXPECT_EQ(sink.messages.size(), 1u);
    return sink.deliveries.empty() ? netprof::PeerHandle{} : sink.deliveries.front().sender;
  }

  // Declared before the endpoints so that the endpoints close first.
  std::unique_ptr<PlannedTransport> m_publisher_transport;
  std::unique_ptr<PlannedTransport> m_subscriber_transport;
  std::unique_ptr<Endpoint> publisher;
  std::unique_ptr<Endpoint> subscriber;
  netprof::PeerHandle subscriber_handle; // as connect() adopted it
};

TEST_P(TransportContract, ZeroTimeoutOnAnIdleEndpointTimesOut)
{
  CollectingSink sink;
  EXPECT_EQ(publisher->receive(sink, 0ns), ReceiveResult::timed_out);
  EXPECT_EQ(subscriber->receive(sink, 0ns), ReceiveResult::timed_out);
  EXPECT_TRUE(sink.messages.empty());
}

TEST_P(TransportContract, TimeoutOnAnIdleEndpointWaitsTheFullTimeout)
{
  expect_idle_wait_lasts(*subscriber, 50ms);
}

// Waits shorter than a millisecond (a pacer's last stretch before a send is due) end on time,
// and a message that comes is heard through them: NNG, whose own timeouts are whole
// milliseconds, waits on its receive descriptor for these, from the first such wait on.
TEST_P(TransportContract, WaitsUnderAMillisecondEndOnTimeAndHearWhatComes)
{
  expect_idle_wait_lasts(*subscriber, 300us);

  ASSERT_NO_FATAL_FAILURE(connect());
  const Bytes message = pattern(64, 9);
  CollectingSink at_subscriber;
  ASSERT_TRUE(send_until_heard(*publisher, *subscriber, at_subscriber, message,
                               Clock::now() + test_deadline, 300us));
  EXPECT_EQ(at_subscriber.messages.front(), message);
}

TEST_P(TransportContract, MessagesArriveByteExactInBothDirections)
{
  const auto deadline = Clock::now() + test_deadline;
  const Bytes upstream = pattern(251, 3);
  ASSERT_EQ(send_until_taken(*subscriber, upstream, deadline), SendResult::sent);
  CollectingSink at_publisher;
  ASSERT_TRUE(receive_until(*publisher, at_publisher, 1, deadline));
  EXPECT_EQ(at_publisher.messages.front(), upstream);
  expect_sound_records(at_publisher);

  ASSERT_TRUE(adopt(*publisher, at_publisher.deliveries.front().sender));
  const Bytes downstream = pattern(173, 9);
  CollectingSink at_subscriber;
  ASSERT_TRUE(send_until_heard(*publisher, *subscriber, at_subscriber, downstream, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), downstream);
  expect_sound_records(at_subscriber);
}

// The sender's handle is a value: kept after its delivery returned, with other messages
// delivered since, adopting it still reaches that subscriber.
TEST_P(TransportContract, SenderKeptAfterItsDeliveryIsAdoptedLater)
{
  const auto deadline = Clock::now() + test_deadline;
  const Bytes hello = pattern(16, 1);
  const Bytes later = pattern(24, 2);
  ASSERT_EQ(send_until_taken(*subscriber, hello, deadline), SendResult::sent);
  CollectingSink at_publisher;
  ASSERT_TRUE(receive_until(*publisher, at_publisher, 1, deadline));
  ASSERT_EQ(send_until_taken(*subscriber, later, deadline), SendResult::sent);
  ASSERT_TRUE(receive_until(*publisher, at_publisher, 2, deadline));
  const netprof::PeerHandle kept = at_publisher.deliveries.front().sender;

  const bool one_by_one = publisher->facts().capabilities.addresses_peers_one_by_one;
  if (one_by_one) {
    EXPECT_FALSE(kept.none()) << "a transport that adopts peers must name the sender";
    ASSERT_EQ(publisher->send(pattern(8, 3)).result, SendResult::sent);
    ASSERT_EQ(publisher->flush().result, SendResult::sent);
    EXPECT_TRUE(stays_quiet(*subscriber)) << "reached a subscriber it never adopted";
  }
  ASSERT_TRUE(adopt(*publisher, kept));
  const Bytes data = pattern(40, 4);
  CollectingSink at_subscriber;
  ASSERT_TRUE(send_until_heard(*publisher, *subscriber, at_subscriber, data, deadline))
      << "the adopted subscriber was not reached";
  EXPECT_EQ(at_subscriber.messages.front(), data);
}

TEST_P(TransportContract, SinkMaySendFromInsideOnMessage)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const Bytes probe = pattern(48, 5);
  ASSERT_EQ(send_until_taken(*publisher, probe, deadline), SendResult::sent);

  EchoSink echo(*subscriber);
  CollectingSink at_publisher;
  while (at_publisher.messages.empty() && Clock::now() < deadline) {
    ASSERT_NE(subscriber->receive(echo, poll_timeout), ReceiveResult::failed);
    ASSERT_NE(publisher->receive(at_publisher, 0ns), ReceiveResult::failed);
  }
  ASSERT_EQ(echo.results, std::vector<SendResult>{SendResult::sent});
  ASSERT_EQ(at_publisher.messages.size(), 1u) << "the echo never came back";
  EXPECT_EQ(at_publisher.messages.front(), probe);
}

TEST_P(TransportContract, SmallestAndLargestMessagesArriveIntact)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const std::size_t largest = publisher->facts().max_message_size;
  const Bytes one_byte = pattern(1, 11);
  const Bytes biggest = pattern(largest, 13);

  ASSERT_EQ(send_until_taken(*publisher, one_byte, deadline), SendResult::sent);
  ASSERT_EQ(send_until_taken(*publisher, biggest, deadline), SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 2, deadline));
  EXPECT_EQ(at_subscriber.messages[0], one_byte);
  EXPECT_EQ(at_subscriber.messages[1].size(), largest);
  EXPECT_TRUE(at_subscriber.messages[1] == biggest) << "the largest message was altered";
  expect_sound_records(at_subscriber);
}

TEST_P(TransportContract, OversizedMessageIsRefusedAndNothingOfItArrives)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const Bytes too_big = pattern(publisher->facts().max_message_size + 1, 17);
  EXPECT_EQ(publisher->send(too_big).result, SendResult::failed);

  // The endpoint still works, and the marker is the first thing to arrive: no fragment of the
  // refused message went out.
  const Bytes marker = pattern(8, 19);
  ASSERT_EQ(send_until_taken(*publisher, marker, deadline), SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), marker);
}

TEST_P(TransportContract, ThousandMessagesArriveInOrderWithoutLoss)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  constexpr std::uint32_t total = 1000;
  constexpr std::uint32_t burst = 10;
  const auto deadline = Clock::now() + test_deadline;
  CollectingSink at_subscriber;
  at_subscriber.messages.reserve(total);

  // A modest rate: the receiver drains after every small burst, so a lossy transport's
  // buffers never overflow and any loss is the transport's fault.
  for (std::uint32_t i = 0; i < total; ++i) {
    ASSERT_EQ(send_until_taken(*publisher, indexed_message(i), deadline), SendResult::sent)
        << "message " << i;
    if ((i + 1) % burst == 0) {
      ASSERT_NE(subscriber->receive(at_subscriber, 0ns), ReceiveResult::failed);
    }
  }
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, total, deadline))
      << "received " << at_subscriber.messages.size() << " of " << total;

  ASSERT_EQ(at_subscriber.messages.size(), total);
  for (std::uint32_t i = 0; i < total; ++i) {
    ASSERT_EQ(index_of(at_subscriber.messages[i]), i) << "out of order or lost at " << i;
    ASSERT_EQ(at_subscriber.messages[i], indexed_message(i)) << "altered at " << i;
  }
  expect_sound_records(at_subscriber);
}

TEST_P(TransportContract, FactsDescribeTheEndpoint)
{
  for (const Endpoint* endpoint : {publisher.get(), subscriber.get()}) {
    const netprof::EndpointFacts facts = endpoint->facts();
    EXPECT_EQ(facts.transport, GetParam().name);
    EXPECT_GE(facts.max_message_size, 64u);
    EXPECT_FALSE(facts.local_addresses.empty());
    EXPECT_EQ(facts.requested_buffer_bytes, queue_length);
  }
}

// The default is a QoS too: every transport states one without a request, with what it means,
// the same on every call, and accepts being asked for it by name (--reliability and --history
// spelling out its own default are never refused).
TEST_P(TransportContract, StatesItsQosAndAcceptsItsOwnDefaultByName)
{
  for (const netprof::Role role : {netprof::Role::publisher, netprof::Role::subscriber}) {
    const PlannedTransport& transport =
        role == netprof::Role::publisher ? *m_publisher_transport : *m_subscriber_transport;
    netprof::EndpointRequest request{role, role == netprof::Role::publisher ? 0u : 1u,
                                     queue_length};
    request.header_bytes = 52;
    request.message_size = request.header_bytes + 128;
    const netprof::EffectiveQos stated = transport.qos(request);
    EXPECT_FALSE(stated.meaning.empty()) << to_string(role);
    EXPECT_EQ(transport.qos(request), stated) << to_string(role);

    request.qos.reliability = stated.reliability;
    if (stated.history != netprof::HistoryKind::none)
      request.qos.history = netprof::History{stated.history, std::nullopt};
    const netprof::EffectiveQos asked = transport.qos(request);
    EXPECT_EQ(asked.reliability, stated.reliability) << to_string(role);
    EXPECT_EQ(asked.history, stated.history) << to_string(role);
    EXPECT_EQ(asked.depth, stated.depth) << to_string(role);
  }
}

// --- The hooks one by one ---------------------------------------------------------------------

// send() and flush() say what came of each call: sent with no cause, or refused with one. A
// publisher sending to a subscriber that does not read fills whatever the transport queues
// (or drops, on a lossy one); the first refusal, if any, names why, as the send accounting
// counts it. An endpoint that waits for room (RoomWaiter) then waits and comes back.
TEST_P(TransportContract, EverySendOutcomeNamesTheCauseOfARefusal)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  const Bytes message = pattern(4096, 21);
  const auto deadline = Clock::now() + test_deadline;
  std::size_t sent = 0;
  SendOutcome refused;
  // Sixteen times -q: more than any transport here queues for one reader that never reads.
  for (std::size_t i = 0; i < 16 * queue_length / message.size() && Clock::now() < deadline; ++i) {
    const SendOutcome outcome = publisher->send(message);
    if (!outcome.sent()) {
      refused = outcome;
      break;
    }
    ASSERT_EQ(outcome.cause, SendCause::unspecified) << "a sent message with a cause, at " << i;
    ++sent;
  }
  if (refused.sent()) {
    // Lossy (it drops rather than pushes back), or it queues that much: flush() is the same.
    const SendOutcome flushed = publisher->flush();
    EXPECT_TRUE(flushed.sent() || flushed.cause != SendCause::unspecified);
    return;
  }
  EXPECT_NE(refused.cause, SendCause::unspecified)
      << "refused (result " << static_cast<int>(refused.result) << ") after " << sent
      << " messages without saying why";
  EXPECT_NE(refused.cause, SendCause::count_);
  if (auto* room = dynamic_cast<netprof::RoomWaiter*>(publisher.get())) {
    const auto start = Clock::now();
    EXPECT_EQ(room->wait_for_room(20ms), netprof::RoomWait::ready);
    EXPECT_LT(Clock::now() - start, 2s) << "waited for room past its timeout";
  }
}

// flush() sends whatever send() held back: afterwards every message is on its way.
TEST_P(TransportContract, FlushLeavesNothingHeldBack)
{
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  for (std::uint32_t i = 0; i < 3; ++i)
    ASSERT_EQ(send_until_taken(*publisher, indexed_message(i), deadline), SendResult::sent);
  SendOutcome flushed = publisher->flush();
  while (flushed.result == SendResult::back_pressured && Clock::now() < deadline)
    flushed = publisher->flush();
  EXPECT_EQ(flushed, SendOutcome{});
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 3, deadline));
  for (std::uint32_t i = 0; i < 3; ++i)
    EXPECT_EQ(at_subscriber.messages[i], indexed_message(i));
}

// A reply without adoption (the address-proof challenge) reaches its sender, and does not make
// it a peer: where the transport addresses peers one by one, data still does not reach it.
TEST_P(TransportContract, ReplyReachesItsSenderWithoutAdoptingIt)
{
  const netprof::PeerHandle sender = hello_from_subscriber();
  const Bytes challenge = pattern(16, 23);
  const auto deadline = Clock::now() + test_deadline;
  CollectingSink at_subscriber;
  // As the core does: not retried by the publisher, but answered again on the next hello.
  while (at_subscriber.messages.empty() && Clock::now() < deadline) {
    const netprof::ReplyOutcome outcome =
        publisher->reply(sender, challenge, PeerFate::keep_unadopted);
    ASSERT_NE(outcome.sent.result, SendResult::failed)
        << "cause " << static_cast<int>(outcome.sent.cause);
    EXPECT_FALSE(outcome.adopted);
    receive_until(*subscriber, at_subscriber, 1, std::min(deadline, Clock::now() + 200ms));
  }
  ASSERT_EQ(at_subscriber.messages.size(), 1u) << "the reply never arrived";
  EXPECT_EQ(at_subscriber.messages.front(), challenge);
  if (publisher->facts().capabilities.addresses_peers_one_by_one) {
    ASSERT_EQ(publisher->send(pattern(8, 3)).result, SendResult::sent);
    ASSERT_EQ(publisher->flush().result, SendResult::sent);
    EXPECT_TRUE(stays_quiet(*subscriber)) << "a reply adopted its sender";
  }
}

// A reply that adopts its sender reaches it, says it adopted it, and from then on so does data.
TEST_P(TransportContract, ReplyThatAdoptsMakesItsSenderAPeer)
{
  const netprof::PeerHandle sender = hello_from_subscriber();
  const Bytes welcome = pattern(40, 25);
  const auto deadline = Clock::now() + test_deadline;
  netprof::ReplyOutcome outcome = publisher->reply(sender, welcome, PeerFate::adopt);
  EXPECT_TRUE(outcome.adopted);
  while (outcome.sent.result == SendResult::back_pressured && Clock::now() < deadline)
    outcome.sent = publisher->send(welcome); // now a peer: sent as any message to it
  ASSERT_EQ(outcome.sent, SendOutcome{});
  const Bytes data = pattern(64, 27);
  ASSERT_EQ(send_until_taken(*publisher, data, deadline), SendResult::sent);
  ASSERT_EQ(publisher->flush().result, SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 2, deadline));
  EXPECT_EQ(at_subscriber.messages[0], welcome);
  EXPECT_EQ(at_subscriber.messages[1], data);
}

// What a transport can do is stated in its facts, the same before and after a peer joins;
// one that reaches everyone anyway has nobody to adopt, so adopting always succeeds.
TEST_P(TransportContract, FactsStateCapabilitiesFixedForTheEndpointsLife)
{
  const netprof::Capabilities publisher_declared = publisher->facts().capabilities;
  const netprof::Capabilities subscriber_declared = subscriber->facts().capabilities;
  EXPECT_FALSE(publisher_declared.addresses_peers_one_by_one && publisher_declared.shared_medium)
      << "a shared medium reaches everyone: it has no peers to address one by one";
  EXPECT_FALSE(subscriber_declared.lends_announced_payload)
      << "only a publisher sends data messages";
  const netprof::PeerHandle sender = hello_from_subscriber();
  if (!publisher_declared.addresses_peers_one_by_one)
    EXPECT_TRUE(publisher->reply(sender, pattern(8, 29), PeerFate::adopt).adopted);
  else
    EXPECT_TRUE(adopt(*publisher, sender));
  EXPECT_TRUE(publisher->facts().capabilities == publisher_declared);
  EXPECT_TRUE(subscriber->facts().capabilities == subscriber_declared);
}

// An endpoint that waits for room (RoomWaiter) comes back by its timeout, room or not.
TEST_P(TransportContract, WaitingForRoomEndsByItsTimeout)
{
  auto* room = dynamic_cast<netprof::RoomWaiter*>(publisher.get());
  if (room == nullptr)
    GTEST_SKIP() << "no RoomWaiter: the core sleeps in a short receive instead";
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto start = Clock::now();
  EXPECT_EQ(room->wait_for_room(20ms), netprof::RoomWait::ready);
  EXPECT_LT(Clock::now() - start, 2s);
}

// An endpoint that keeps the payload (PayloadKeeper) sends every data message ending with it
// byte-exact while only the header in front changes, and any other message as usual.
TEST_P(TransportContract, KeptPayloadArrivesIntactBehindEachHeader)
{
  auto* keeper = dynamic_cast<netprof::PayloadKeeper*>(publisher.get());
  if (keeper == nullptr)
    GTEST_SKIP() << "no PayloadKeeper";
  ASSERT_NO_FATAL_FAILURE(connect());
  constexpr std::size_t header = 16;
  Bytes data = pattern(header + 2048, 31);
  keeper->keep_payload(std::span<const std::byte>(data).subspan(header));
  const auto deadline = Clock::now() + test_deadline;
  std::vector<Bytes> sent;
  for (std::uint8_t i = 0; i < 4; ++i) {
    std::fill_n(data.begin(), header, std::byte{i});
    ASSERT_EQ(send_until_taken(*publisher, data, deadline), SendResult::sent);
    sent.push_back(data);
  }
  const Bytes other = pattern(header + 2048, 33); // the same size, elsewhere: not the payload
  ASSERT_EQ(send_until_taken(*publisher, other, deadline), SendResult::sent);
  sent.push_back(other);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, sent.size(), deadline));
  for (std::size_t i = 0; i < sent.size(); ++i)
    EXPECT_TRUE(at_subscriber.messages[i] == sent[i]) << "message " << i << " altered";
}

// ---- Lending: every transport whose endpoint lends (MessageLender) -------------------------

// The publisher's lender, or null (the test then skips: the transport does not lend).
netprof::MessageLender* lender_of(Endpoint& endpoint)
{
  return dynamic_cast<netprof::MessageLender*>(&endpoint);
}

// Claims until a loan comes or the deadline passes (back-pressure clears as the peer drains).
netprof::Loan claim_until_lent(netprof::MessageLender& lender, std::size_t size,
                               Clock::time_point deadline)
{
  netprof::Loan loan = lender.claim(size);
  while (loan.bytes.empty() && loan.refusal == SendResult::back_pressured &&
         Clock::now() < deadline)
    loan = lender.claim(size);
  return loan;
}

TEST_P(TransportContract, LentMessageArrivesByteExact)
{
  netprof::MessageLender* lender = lender_of(*publisher);
  if (lender == nullptr)
    GTEST_SKIP() << "does not lend";
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const Bytes message = pattern(211, 23);
  const netprof::Loan loan = claim_until_lent(*lender, message.size(), deadline);
  ASSERT_EQ(loan.bytes.size(), message.size()) << "refused: " << static_cast<int>(loan.cause);
  std::copy(message.begin(), message.end(), loan.bytes.begin());
  ASSERT_EQ(lender->commit(loan), SendResult::sent);
  ASSERT_EQ(publisher->flush(), SendOutcome{});

  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), message);
  expect_sound_records(at_subscriber);
}

TEST_P(TransportContract, AbandonedLoanSendsNothing)
{
  netprof::MessageLender* lender = lender_of(*publisher);
  if (lender == nullptr)
    GTEST_SKIP() << "does not lend";
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const netprof::Loan abandoned = claim_until_lent(*lender, 96, deadline);
  ASSERT_EQ(abandoned.bytes.size(), 96u);
  const Bytes never = pattern(96, 29);
  std::copy(never.begin(), never.end(), abandoned.bytes.begin());
  lender->abandon(abandoned);

  // The endpoint goes on, and the marker is all that arrives.
  const Bytes marker = pattern(40, 31);
  ASSERT_EQ(send_until_taken(*publisher, marker, deadline), SendResult::sent);
  ASSERT_EQ(publisher->flush(), SendOutcome{});
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), marker);
  EXPECT_TRUE(stays_quiet(*subscriber)) << "something of the abandoned loan arrived";
}

TEST_P(TransportContract, OversizedClaimIsRefusedWithACause)
{
  netprof::MessageLender* lender = lender_of(*publisher);
  if (lender == nullptr)
    GTEST_SKIP() << "does not lend";
  const netprof::Loan loan = lender->claim(publisher->facts().max_message_size + 1);
  EXPECT_TRUE(loan.bytes.empty());
  EXPECT_EQ(loan.refusal, SendResult::failed);
  EXPECT_EQ(loan.cause, netprof::SendCause::error);
}

// The same payload behind a changing header, as the core sends data: once a loan says it holds
// the payload, its bytes must be that payload, and sending it with only the header rewritten
// must deliver the whole message.
TEST_P(TransportContract, RelentBufferSaysItHoldsThePayloadAndDoes)
{
  netprof::MessageLender* lender = lender_of(*publisher);
  if (lender == nullptr)
    GTEST_SKIP() << "does not lend";
  ASSERT_NO_FATAL_FAILURE(connect());
  constexpr std::size_t header = 8;
  constexpr std::uint32_t most_claims = 30'000; // RouDi's pools and a 1 MiB ring come round sooner
  const Bytes payload = pattern(248, 37);
  const auto deadline = Clock::now() + test_deadline;
  CollectingSink at_subscriber;
  std::uint32_t holding = 0;
  std::uint32_t sent = 0;
  for (; sent < most_claims && holding < 3 && Clock::now() < deadline; ++sent) {
    const netprof::Loan loan = claim_until_lent(*lender, header + payload.size(), deadline);
    ASSERT_EQ(loan.bytes.size(), header + payload.size()) << "message " << sent;
    const Bytes message = [&] {
      Bytes bytes = indexed_message(sent);
      bytes.resize(header);
      bytes.insert(bytes.end(), payload.begin(), payload.end());
      return bytes;
    }();
    if (loan.holds_payload) {
      ++holding;
      ASSERT_TRUE(std::equal(payload.begin(), payload.end(), loan.bytes.begin() + header))
          << "a loan said it held the payload and did not, at message " << sent;
      std::copy(message.begin(), message.begin() + header, loan.bytes.begin());
    } else {
      std::copy(message.begin(), message.end(), loan.bytes.begin());
    }
    ASSERT_EQ(lender->commit(loan), SendResult::sent);
    at_subscriber.messages.clear();
    at_subscriber.deliveries.clear();
    ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline)) << "message " << sent;
    ASSERT_EQ(at_subscriber.messages.back(), message) << "message " << sent;
  }
  EXPECT_EQ(holding, 3u) << "no buffer came back holding the payload in " << sent << " loans";
}

// A transport that can be full (a keep-all ring whose reader lags) lends nothing then, and says
// why; one that never is (it replaces its oldest message) is skipped after a ring's worth.
TEST_P(TransportContract, FullTransportRefusesALoanWithACause)
{
  netprof::MessageLender* lender = lender_of(*publisher);
  if (lender == nullptr)
    GTEST_SKIP() << "does not lend";
  ASSERT_NO_FATAL_FAILURE(connect());
  constexpr std::size_t size = 1024;
  const std::size_t enough = 4 * queue_length / size;
  for (std::size_t i = 0; i < enough; ++i) {
    const netprof::Loan loan = lender->claim(size);
    if (loan.bytes.empty()) {
      EXPECT_EQ(loan.refusal, SendResult::back_pressured) << "after " << i;
      EXPECT_NE(loan.cause, netprof::SendCause::unspecified);
      return;
    }
    ASSERT_EQ(lender->commit(loan), SendResult::sent);
  }
  GTEST_SKIP() << "never full with the subscriber not reading: it keeps the latest";
}

// ---- Sending to one peer: every transport whose endpoint is a PeerSender ---------------------

// A descriptor that lets --fanout round-robin through has an endpoint the core can deal
// messages out with: it sends to one peer, and addresses its peers one by one. (An endpoint
// shared with a mode that reaches everyone, as multicast shares udp's, may implement the hook
// without the flag: the command line refuses the option there.)
TEST_P(TransportContract, SendsToOneWhereverItsFlagSaysSo)
{
  if (!GetParam().flags.sends_to_one)
    GTEST_SKIP() << "refuses --fanout round-robin";
  EXPECT_NE(dynamic_cast<netprof::PeerSender*>(publisher.get()), nullptr);
  EXPECT_TRUE(publisher->facts().capabilities.addresses_peers_one_by_one);
}

TEST_P(TransportContract, SentToItsPeerAMessageArrivesByteExact)
{
  auto* one = dynamic_cast<netprof::PeerSender*>(publisher.get());
  if (!GetParam().flags.sends_to_one || one == nullptr)
    GTEST_SKIP() << "refuses --fanout round-robin";
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const Bytes data = pattern(96, 31);
  SendOutcome outcome = one->send_to(subscriber_handle, data);
  while (outcome.result == SendResult::back_pressured && Clock::now() < deadline)
    outcome = one->send_to(subscriber_handle, data);
  ASSERT_EQ(outcome, SendOutcome{});
  ASSERT_EQ(publisher->flush().result, SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), data);
  expect_sound_records(at_subscriber);
}

// A handle that names nobody the publisher adopted (not adopted yet, or gone) is no error: the
// message counts as sent and nobody hears it, as send() treats a peer that left, and the core
// charges it to that subscriber as loss.
TEST_P(TransportContract, SentToSomeoneNotAdoptedNobodyHearsIt)
{
  auto* one = dynamic_cast<netprof::PeerSender*>(publisher.get());
  if (!GetParam().flags.sends_to_one || one == nullptr)
    GTEST_SKIP() << "refuses --fanout round-robin";
  const netprof::PeerHandle sender = hello_from_subscriber();
  EXPECT_EQ(one->send_to(sender, pattern(32, 33)), SendOutcome{});
  EXPECT_EQ(one->send_to(netprof::PeerHandle{0x7777}, pattern(32, 35)), SendOutcome{});
  ASSERT_EQ(publisher->flush().result, SendResult::sent);
  EXPECT_TRUE(stays_quiet(*subscriber)) << "reached a subscriber it never adopted";
}

// ---- Dealing: every transport whose medium deals messages out (MessageDealer) ----------------

// A descriptor that deals in turn has an endpoint the core can deal through, and a message dealt
// to the one subscriber there is arrives whole.
TEST_P(TransportContract, DealtAMessageArrivesByteExactWhereverItsFlagSaysSo)
{
  if (!GetParam().flags.deals_in_turn)
    GTEST_SKIP() << "does not deal";
  auto* dealer = dynamic_cast<netprof::MessageDealer*>(publisher.get());
  ASSERT_NE(dealer, nullptr);
  ASSERT_NO_FATAL_FAILURE(connect());
  const auto deadline = Clock::now() + test_deadline;
  const Bytes data = pattern(96, 37);
  SendOutcome outcome = dealer->deal(data);
  while (outcome.result == SendResult::back_pressured && Clock::now() < deadline)
    outcome = dealer->deal(data);
  ASSERT_EQ(outcome, SendOutcome{});
  ASSERT_EQ(publisher->flush().result, SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
  EXPECT_EQ(at_subscriber.messages.front(), data);
}

std::string transport_name(const ::testing::TestParamInfo<TransportDescriptor>& info)
{
  // gtest names allow only letters, digits and '_'.
  std::string name = info.param.name;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Builtin, TransportContract, ::testing::ValuesIn(builtin_transports()),
                         transport_name);

} // namespace
