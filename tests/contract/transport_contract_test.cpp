// The contract every transport must pass. It runs over every entry that
// register_builtin_transports() adds, so a new transport is covered by adding its one line
// there. The tests only use the seam (registry.hpp, transport.hpp): a publisher/subscriber
// pair is built from the transport's own local_pair_arguments(), as the local pair does.
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
void PrintTo(const TransportEntry& entry, std::ostream* out)
{
  *out << entry.name;
}

} // namespace netprof

namespace {

using netprof::testing::CollectingSink;

using namespace std::chrono_literals;
using netprof::Clock;
using netprof::Endpoint;
using netprof::ReceiveResult;
using netprof::SendResult;
using netprof::Transport;
using netprof::TransportEntry;
using netprof::testing::give_arguments;

using Bytes = std::vector<std::byte>;

constexpr auto test_deadline = 5s;
constexpr auto poll_timeout = 10ms;
constexpr std::size_t queue_length = std::size_t{1} << 20;

std::vector<TransportEntry> builtin_transports()
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
    results.push_back(m_endpoint.send(delivery.bytes));
  }

  std::vector<SendResult> results;

private:
  Endpoint& m_endpoint;
};

// Keeps receiving until `count` messages are in or the deadline passes.
bool receive_until(Endpoint& endpoint, CollectingSink& sink, std::size_t count,
                   Clock::time_point deadline)
{
  while (sink.messages.size() < count && Clock::now() < deadline) {
    if (endpoint.receive(sink, poll_timeout) == ReceiveResult::failed) {
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

// Nothing arrives within a short wait.
bool stays_quiet(Endpoint& endpoint)
{
  CollectingSink sink;
  return endpoint.receive(sink, 50ms) != ReceiveResult::received && sink.messages.empty();
}

// back_pressured means "not sent, try again"; anything else is the answer.
SendResult send_until_taken(Endpoint& endpoint, const Bytes& message, Clock::time_point deadline)
{
  SendResult result = endpoint.send(message);
  while (result == SendResult::back_pressured && Clock::now() < deadline) {
    result = endpoint.send(message);
  }
  return result;
}

// What a local pair starts besides its members (iceoryx's RouDi, unless one runs), as the local
// pair does, but once per transport for the whole binary (RouDi takes a second or more to
// start); stopped when the binary exits, after every endpoint has closed.
void start_pair_service_once(const Transport& transport, const std::string& name)
{
  static std::map<std::string, std::unique_ptr<netprof::PairService>> services;
  if (const auto [kept, added] = services.try_emplace(name); added)
    kept->second = transport.start_pair_service();
}

class TransportContract : public ::testing::TestWithParam<TransportEntry> {
protected:
  void SetUp() override
  {
    m_publisher_transport = GetParam().make();
    m_subscriber_transport = GetParam().make();
    ASSERT_NE(m_publisher_transport, nullptr);
    ASSERT_NE(m_subscriber_transport, nullptr);

    start_pair_service_once(*m_publisher_transport, GetParam().name);
    const Transport::LocalPairArguments arguments = m_publisher_transport->local_pair_arguments();
    give_arguments(*m_publisher_transport, arguments.publisher);
    give_arguments(*m_subscriber_transport, arguments.subscriber);
    m_publisher_transport->validate(netprof::Role::publisher);
    m_subscriber_transport->validate(netprof::Role::subscriber);

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
    const Bytes hello = pattern(16, 1);
    const auto deadline = Clock::now() + test_deadline;
    ASSERT_EQ(send_until_taken(*subscriber, hello, deadline), SendResult::sent);
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*publisher, sink, 1, deadline)) << "the hello never arrived";
    ASSERT_EQ(sink.messages.front(), hello);
    ASSERT_TRUE(publisher->adopt_peer(sink.deliveries.front().sender));
  }

  // Declared before the endpoints so that the endpoints close first.
  std::unique_ptr<Transport> m_publisher_transport;
  std::unique_ptr<Transport> m_subscriber_transport;
  std::unique_ptr<Endpoint> publisher;
  std::unique_ptr<Endpoint> subscriber;
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
  CollectingSink sink;
  const auto start = Clock::now();
  const ReceiveResult result = subscriber->receive(sink, 50ms);
  const auto elapsed = Clock::now() - start;

  EXPECT_EQ(result, ReceiveResult::timed_out);
  EXPECT_GE(elapsed, 50ms);
  EXPECT_LT(elapsed, 3s) << "the timeout was ignored";
  EXPECT_TRUE(sink.messages.empty());
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

  ASSERT_TRUE(publisher->adopt_peer(at_publisher.deliveries.front().sender));
  const Bytes downstream = pattern(173, 9);
  ASSERT_EQ(send_until_taken(*publisher, downstream, deadline), SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline));
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

  const bool one_by_one = publisher->capabilities().addresses_peers_one_by_one;
  if (one_by_one) {
    EXPECT_FALSE(kept.none()) << "a transport that adopts peers must name the sender";
    ASSERT_EQ(publisher->send(pattern(8, 3)), SendResult::sent);
    ASSERT_EQ(publisher->flush(), SendResult::sent);
    EXPECT_TRUE(stays_quiet(*subscriber)) << "reached a subscriber it never adopted";
  }
  ASSERT_TRUE(publisher->adopt_peer(kept));
  const Bytes data = pattern(40, 4);
  ASSERT_EQ(send_until_taken(*publisher, data, deadline), SendResult::sent);
  ASSERT_EQ(publisher->flush(), SendResult::sent);
  CollectingSink at_subscriber;
  ASSERT_TRUE(receive_until(*subscriber, at_subscriber, 1, deadline))
      << "the adopted subscriber was not reached";
  EXPECT_EQ(at_subscriber.messages.front(), data);
}

TEST_P(TransportContract, CapabilitiesAreFixedAndShownInTheFacts)
{
  for (const Endpoint* endpoint : {publisher.get(), subscriber.get()}) {
    const netprof::Capabilities declared = endpoint->capabilities();
    EXPECT_TRUE(endpoint->facts().capabilities == declared);
  }
  ASSERT_NO_FATAL_FAILURE(connect());
  EXPECT_TRUE(publisher->facts().capabilities == publisher->capabilities());
  EXPECT_FALSE(subscriber->capabilities().lends_announced_payload)
      << "only a publisher sends data messages";
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
  EXPECT_EQ(publisher->send(too_big), SendResult::failed);

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
    const Transport& transport =
        role == netprof::Role::publisher ? *m_publisher_transport : *m_subscriber_transport;
    netprof::EndpointRequest request{role, role == netprof::Role::publisher ? 0u : 1u,
                                     queue_length};
    request.header_bytes = 52;
    request.message_size = request.header_bytes + 128;
    const netprof::EffectiveQos stated = transport.effective_qos(request);
    EXPECT_FALSE(stated.meaning.empty()) << to_string(role);
    EXPECT_EQ(transport.effective_qos(request), stated) << to_string(role);

    request.qos.reliability = stated.reliability;
    if (stated.history != netprof::HistoryKind::none)
      request.qos.history = netprof::History{stated.history, std::nullopt};
    const netprof::EffectiveQos asked = transport.effective_qos(request);
    EXPECT_EQ(asked.reliability, stated.reliability) << to_string(role);
    EXPECT_EQ(asked.history, stated.history) << to_string(role);
    EXPECT_EQ(asked.depth, stated.depth) << to_string(role);
  }
}

// ---- Lending: every transport whose endpoint lends (Endpoint::lender) ----------------------

// The publisher's lender, or null (the test then skips: the transport does not lend).
netprof::MessageLender* lender_of(Endpoint& endpoint)
{
  return endpoint.lender();
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
  ASSERT_EQ(publisher->flush(), SendResult::sent);

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
  ASSERT_EQ(publisher->flush(), SendResult::sent);
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

std::string transport_name(const ::testing::TestParamInfo<TransportEntry>& info)
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
