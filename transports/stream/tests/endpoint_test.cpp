// The stream endpoint against what real sockets do, over tcp and both Unix socket types:
// strangers that send garbage or announce huge messages, peers that vanish mid-message, a
// subscriber that stops reading, slots all taken, a subscriber that starts before its publisher.
// Every wait is bounded by a deadline.

#include "tcp/tcp_transport.hpp"
#include "uds/uds_transport.hpp"

#include "common/unique_fd.hpp"

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using testing::CollectingSink;
using testing::PlannedTransport;
using transport_common::UniqueFd;

using Bytes = std::vector<std::byte>;

constexpr auto deadline_after = 5s;
constexpr std::size_t queue_length = std::size_t{1} << 20;
constexpr std::size_t largest_control = 300;

struct Kind {
  std::string name;
  std::function<TransportDescriptor()> describe;
  std::vector<std::string> options;
  int socket_type;
  bool framed;
};

std::vector<Kind> kinds()
{
  return {
      {"tcp", netprof::tcp_transport, {}, SOCK_STREAM, true},
      {"uds_seqpacket", netprof::uds_transport, {"--uds-type", "seqpacket"}, SOCK_SEQPACKET, false},
      {"uds_stream", netprof::uds_transport, {"--uds-type", "stream"}, SOCK_STREAM, true}};
}

Bytes text(const std::string& characters)
{
  Bytes bytes(characters.size());
  std::memcpy(bytes.data(), characters.data(), characters.size());
  return bytes;
}

Bytes framed(const Bytes& message)
{
  const auto length = static_cast<std::uint32_t>(message.size());
  Bytes bytes = {std::byte{'n'}, std::byte{'p'}, std::byte{0}, std::byte{0}};
  for (int i = 0; i < 4; ++i) {
    bytes.push_back(static_cast<std::byte>((length >> (8 * i)) & 0xff));
  }
  bytes.insert(bytes.end(), message.begin(), message.end());
  return bytes;
}

std::string joined(const std::vector<std::string>& lines)
{
  std::string all;
  for (const std::string& line : lines) {
    all += line + "\n";
  }
  return all;
}

// A socket address from a --tcp host:port or a --uds path.
struct RawAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_INET;
};

RawAddress raw_address(const std::string& value, bool tcp)
{
  RawAddress raw;
  if (tcp) {
    auto* in = reinterpret_cast<sockaddr_in*>(&raw.storage);
    const std::size_t colon = value.rfind(':');
    in->sin_family = AF_INET;
    in->sin_port = htons(static_cast<std::uint16_t>(std::stoi(value.substr(colon + 1))));
    inet_pton(AF_INET, value.substr(0, colon).c_str(), &in->sin_addr);
    raw.length = sizeof *in;
  } else {
    auto* un = reinterpret_cast<sockaddr_un*>(&raw.storage);
    un->sun_family = AF_UNIX;
    std::memcpy(un->sun_path, value.data(), value.size());
    raw.length = sizeof *un;
    raw.family = AF_UNIX;
  }
  return raw;
}

void PrintTo(const Kind& kind, std::ostream* out)
{
  *out << kind.name;
}

class StreamEndpointTest : public ::testing::TestWithParam<Kind> {
protected:
  void SetUp() override
  {
    m_arguments = PlannedTransport(GetParam().describe(), {}).pair_plan(2);
    for (const std::string& file : m_arguments.files) {
      m_files.push_back(file);
    }
  }
  void TearDown() override
  {
    for (const std::string& file : m_files) {
      unlink(file.c_str());
    }
  }

  bool tcp() const { return GetParam().name == "tcp"; }
  // The publisher's address as its --tcp or --uds gave it.
  std::string address() const { return m_arguments.publisher.at(1); }

  std::vector<std::string> with_kind(std::vector<std::string> arguments) const
  {
    arguments.insert(arguments.end(), GetParam().options.begin(), GetParam().options.end());
    return arguments;
  }

  std::unique_ptr<Endpoint> open(Role role, std::vector<std::string> arguments,
                                 std::size_t subscribers = 2)
  {
    const PlannedTransport transport(GetParam().describe(), with_kind(std::move(arguments)));
    EndpointRequest request;
    request.role = role;
    request.queue_length_bytes = queue_length;
    request.message_size = 116;
    request.header_bytes = 52;
    request.largest_control_message = role == Role::publisher ? largest_control : 0;
    request.subscribers = subscribers;
    return transport.open(request);
  }

  std::unique_ptr<Endpoint> open_publisher(std::size_t subscribers = 2)
  {
    return open(Role::publisher, m_arguments.publisher, subscribers);
  }
  std::unique_ptr<Endpoint> open_subscriber(std::size_t index = 0)
  {
    return open(Role::subscriber, m_arguments.subscribers.at(index));
  }

  // A stranger's connection to the publisher.
  UniqueFd connect_raw() const
  {
    const RawAddress raw = raw_address(address(), tcp());
    UniqueFd fd(socket(raw.family, GetParam().socket_type | SOCK_CLOEXEC, 0));
    EXPECT_TRUE(fd.valid());
    EXPECT_EQ(connect(fd.get(), reinterpret_cast<const sockaddr*>(&raw.storage), raw.length), 0)
        << std::strerror(errno);
    return fd;
  }

  // Receives on `endpoint` until `done` or the deadline.
  static bool receive_until(Endpoint& endpoint, CollectingSink& sink,
                            const std::function<bool()>& done)
  {
    const auto deadline = Clock::now() + deadline_after;
    while (!done() && Clock::now() < deadline) {
      if (endpoint.receive(sink, 10ms) == ReceiveResult::failed) {
        return done();
      }
    }
    return done();
  }

  // The subscriber says hello, the publisher adopts it: what the core does.
  static void join(Endpoint& publisher, Endpoint& subscriber, const std::string& hello)
  {
    const auto deadline = Clock::now() + deadline_after;
    SendResult sent = subscriber.send(text(hello)).result;
    while (sent == SendResult::back_pressured && Clock::now() < deadline) {
      sent = subscriber.send(text(hello)).result;
    }
    ASSERT_EQ(sent, SendResult::sent);
    CollectingSink sink;
    ASSERT_TRUE(receive_until(publisher, sink, [&] { return !sink.messages.empty(); }));
    ASSERT_EQ(sink.messages.front(), text(hello));
    ASSERT_TRUE(netprof::testing::adopt(publisher, sink.deliveries.front().sender));
  }

  // Whether the stranger's connection was closed by the publisher (EOF or reset), which
  // receives meanwhile.
  static bool closed_by_publisher(int fd, Endpoint& publisher)
  {
    const auto deadline = Clock::now() + deadline_after;
    std::byte byte{};
    CollectingSink sink;
    while (Clock::now() < deadline) {
      const ssize_t got = recv(fd, &byte, 1, MSG_DONTWAIT);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        return true;
      }
      publisher.receive(sink, 1ms);
    }
    return false;
  }

  netprof::LocalPairPlan m_arguments;
  std::vector<std::string> m_files;
};

TEST_P(StreamEndpointTest, AStrangerAnnouncingAHugeMessageIsClosedAndNamed)
{
  const auto publisher = open_publisher();
  const UniqueFd stranger = connect_raw();
  const Bytes huge = GetParam().framed
                         ? Bytes{std::byte{'n'},  std::byte{'p'},  std::byte{0},    std::byte{0},
                                 std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}}
                         : Bytes(largest_control + 1, std::byte{'x'});
  ASSERT_EQ(send(stranger.get(), huge.data(), huge.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(huge.size()));

  EXPECT_TRUE(closed_by_publisher(stranger.get(), *publisher));
  const std::string said = joined(publisher->facts().diagnoses);
  EXPECT_NE(said.find("more than the 300 read here"), std::string::npos) << said;
  const std::string noted = joined(publisher->facts().notes);
  EXPECT_NE(noted.find("0 not framed, 1 too large"), std::string::npos) << noted;
}

TEST_P(StreamEndpointTest, AStrangerSendingGarbageIsClosedAndTheRunGoesOn)
{
  if (!GetParam().framed) {
    GTEST_SKIP() << "records carry no framing to break: garbage goes to the core, which rejects it";
  }
  const auto publisher = open_publisher();
  const auto subscriber = open_subscriber();
  const UniqueFd stranger = connect_raw();
  const Bytes garbage = text("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  send(stranger.get(), garbage.data(), garbage.size(), MSG_NOSIGNAL);
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));

  EXPECT_TRUE(closed_by_publisher(stranger.get(), *publisher));
  ASSERT_EQ(publisher->send(text("data")).result, SendResult::sent);
  CollectingSink at_subscriber;
  EXPECT_TRUE(
      receive_until(*subscriber, at_subscriber, [&] { return !at_subscriber.messages.empty(); }));
  EXPECT_NE(joined(publisher->facts().notes).find("1 not framed"), std::string::npos)
      << joined(publisher->facts().notes);
}

TEST_P(StreamEndpointTest, APeerThatLeavesMidMessageIsDroppedAndOthersStillGetData)
{
  if (!GetParam().framed) {
    GTEST_SKIP() << "a record arrives whole or not at all";
  }
  const auto publisher = open_publisher();
  const auto subscriber = open_subscriber();
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));
  {
    const UniqueFd leaving = connect_raw();
    const Bytes whole = framed(Bytes(64, std::byte{1}));
    const Bytes half(whole.begin(), whole.begin() + 20);
    send(leaving.get(), half.data(), half.size(), MSG_NOSIGNAL);
  }
  CollectingSink sink;
  const auto deadline = Clock::now() + deadline_after;
  while (publisher->facts().diagnoses.empty() && Clock::now() < deadline) {
    ASSERT_NE(publisher->receive(sink, 10ms), ReceiveResult::failed);
  }
  const std::string said = joined(publisher->facts().diagnoses);
  EXPECT_NE(said.find("in the middle of a message (12 of its 64 bytes had come)"),
            std::string::npos)
      << said;
  ASSERT_EQ(publisher->send(text("still flowing")).result, SendResult::sent);
  CollectingSink at_subscriber;
  EXPECT_TRUE(
      receive_until(*subscriber, at_subscriber, [&] { return !at_subscriber.messages.empty(); }));
}

TEST_P(StreamEndpointTest, APublisherThatVanishesMidMessageFailsItsSubscriber)
{
  if (!GetParam().framed) {
    GTEST_SKIP() << "a record arrives whole or not at all";
  }
  // A fake publisher: a bare listener at the publisher's address.
  const RawAddress raw = raw_address(address(), tcp());
  const UniqueFd listener(socket(raw.family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int on = 1;
  setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<const sockaddr*>(&raw.storage), raw.length), 0);
  ASSERT_EQ(listen(listener.get(), 4), 0);

  const auto subscriber = open_subscriber();
  const UniqueFd accepted(accept(listener.get(), nullptr, nullptr));
  ASSERT_TRUE(accepted.valid());
  const Bytes whole = framed(Bytes(116, std::byte{2}));
  send(accepted.get(), whole.data(), 40, MSG_NOSIGNAL);
  close(accepted.get());

  CollectingSink sink;
  ReceiveResult result = ReceiveResult::timed_out;
  const auto deadline = Clock::now() + deadline_after;
  while (result != ReceiveResult::failed && Clock::now() < deadline) {
    result = subscriber->receive(sink, 10ms);
  }
  EXPECT_EQ(result, ReceiveResult::failed);
  EXPECT_TRUE(sink.messages.empty());
  const std::string said = joined(subscriber->facts().diagnoses);
  EXPECT_NE(said.find("closed in the middle of a message (32 of its 116 bytes had come)"),
            std::string::npos)
      << said;
  EXPECT_EQ(subscriber->receive(sink, 0ns), ReceiveResult::failed) << "it stays failed";
}

TEST_P(StreamEndpointTest, TheHandleOfAClosedConnectionAdoptsNobody)
{
  const auto publisher = open_publisher();
  netprof::PeerHandle kept;
  {
    const auto subscriber = open_subscriber();
    ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));
    CollectingSink sink;
    subscriber->send(text("again"));
    ASSERT_TRUE(receive_until(*publisher, sink, [&] { return !sink.messages.empty(); }));
    kept = sink.deliveries.front().sender;
  }
  CollectingSink sink;
  const auto deadline = Clock::now() + deadline_after;
  while (netprof::testing::adopt(*publisher, kept) && Clock::now() < deadline) {
    publisher->receive(sink, 10ms); // notices the connection closed
  }
  EXPECT_FALSE(netprof::testing::adopt(*publisher, kept));
  EXPECT_EQ(publisher->reply(kept, text("anyone?"), netprof::PeerFate::keep_unadopted).sent.result,
            SendResult::failed);
}

TEST_P(StreamEndpointTest, ASubscriberThatStopsReadingBringsBackPressureNotAWait)
{
  const auto publisher = open_publisher();
  const auto subscriber = open_subscriber();
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));
  const Bytes message(8192, std::byte{3});
  std::size_t sent = 0;
  const auto start = Clock::now();
  netprof::SendOutcome outcome;
  while (outcome.sent() && sent < 100000) {
    outcome = publisher->send(message);
    sent += outcome.sent() ? 1 : 0;
  }
  EXPECT_EQ(outcome.result, SendResult::back_pressured);
  EXPECT_EQ(outcome.cause, netprof::SendCause::would_block);
  EXPECT_LT(Clock::now() - start, 2s) << "a full socket must not make send() wait";

  // Once the subscriber reads, everything taken arrives, in order and whole.
  CollectingSink at_subscriber;
  const auto deadline = Clock::now() + deadline_after;
  while (at_subscriber.messages.size() < sent && Clock::now() < deadline) {
    publisher->flush();
    ASSERT_NE(subscriber->receive(at_subscriber, 1ms), ReceiveResult::failed);
  }
  ASSERT_EQ(at_subscriber.messages.size(), sent);
  EXPECT_TRUE(std::all_of(at_subscriber.messages.begin(), at_subscriber.messages.end(),
                          [&](const Bytes& got) { return got == message; }));
  EXPECT_EQ(publisher->flush().result, SendResult::sent);
}

TEST_P(StreamEndpointTest, TwoSubscribersEachGetEveryMessageAndAreToldApart)
{
  const auto publisher = open_publisher();
  const auto first = open_subscriber(0);
  const auto second = open_subscriber(1);
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *first, "one"));
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *second, "two"));
  EXPECT_EQ(publisher->facts().peak_connections, 2u);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(publisher->send(text("message " + std::to_string(i))).result, SendResult::sent);
  }
  for (Endpoint* subscriber : {first.get(), second.get()}) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, [&] { return sink.messages.size() >= 100; }));
    EXPECT_EQ(sink.messages.back(), text("message 99"));
  }
  // Echoes come back from each, under handles of their own.
  first->send(text("echo one"));
  second->send(text("echo two"));
  CollectingSink echoes;
  ASSERT_TRUE(receive_until(*publisher, echoes, [&] { return echoes.messages.size() >= 2; }));
  EXPECT_NE(echoes.deliveries[0].sender, echoes.deliveries[1].sender);
}

// A publisher with one subscriber waits on it in blocking reads (as a blocking program does);
// a newcomer's connection waits in the backlog only until its next look at the listener.
TEST_P(StreamEndpointTest, APublisherReadingItsOneSubscriberStillHearsANewcomerSoon)
{
  const auto publisher = open_publisher();
  const auto first = open_subscriber(0);
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *first, "one"));
  CollectingSink at_publisher;
  publisher->receive(at_publisher, 20ms); // a blocking read on the first, in vain

  const auto second = open_subscriber(1);
  CollectingSink at_second;
  const auto start = Clock::now();
  while (at_publisher.messages.empty() && Clock::now() < start + deadline_after) {
    second->send(text("two"));
    second->receive(at_second, 0ns); // dials
    publisher->receive(at_publisher, 20ms);
  }
  ASSERT_FALSE(at_publisher.messages.empty());
  EXPECT_EQ(at_publisher.messages.front(), text("two"));
  EXPECT_LT(Clock::now() - start, 1s);
  // The first is still heard (the newcomer may have said hello more than once).
  first->send(text("echo one"));
  const auto echoed = [&] {
    return std::find(at_publisher.messages.begin(), at_publisher.messages.end(),
                     text("echo one")) != at_publisher.messages.end();
  };
  EXPECT_TRUE(receive_until(*publisher, at_publisher, echoed));
}

// A spinning publisher reads its connections directly and looks at its listener only now and
// then (a look that finds nobody must cost little: it sits in the echoes' spin loop); a
// newcomer still gets in within a moment.
TEST_P(StreamEndpointTest, ASpinningPublisherStillHearsANewcomerSoon)
{
  const auto publisher = open_publisher();
  const auto first = open_subscriber(0);
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *first, "one"));
  CollectingSink at_publisher;
  for (int i = 0; i < 1000; ++i)
    publisher->receive(at_publisher, 0ns); // every one finds nothing: the idle spin

  const auto second = open_subscriber(1);
  CollectingSink at_second;
  second->send(text("two"));
  const auto start = Clock::now();
  while (at_publisher.messages.empty() && Clock::now() < start + deadline_after) {
    second->receive(at_second, 0ns); // finishes its dial, if it has not
    second->send(text("two"));
    publisher->receive(at_publisher, 0ns);
  }
  ASSERT_FALSE(at_publisher.messages.empty());
  EXPECT_EQ(at_publisher.messages.front(), text("two"));
  EXPECT_LT(Clock::now() - start, 1s);
}

// A subscriber that ends with messages still unread (the publisher sends END and
// acknowledgements to every subscriber until the last is done) leaves cleanly: the publisher
// counts a close by its peer, not a socket error (closing with unread bytes resets a
// connection).
TEST_P(StreamEndpointTest, ASubscriberLeavingWithMessagesUnreadIsACleanClose)
{
  const auto publisher = open_publisher(1);
  auto subscriber = open_subscriber(0);
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(publisher->send(text("never read " + std::to_string(i))).result, SendResult::sent);
  subscriber.reset();

  CollectingSink sink;
  const auto closed = [&] {
    return joined(publisher->facts().notes).find("1 closed by their peers") != std::string::npos;
  };
  EXPECT_TRUE(receive_until(*publisher, sink, closed)) << joined(publisher->facts().notes);
  EXPECT_EQ(joined(publisher->facts().notes).find("socket error"), std::string::npos)
      << joined(publisher->facts().notes);
}

TEST_P(StreamEndpointTest, ASubscriberStartedFirstConnectsOnceItsPublisherListens)
{
  const auto subscriber = open_subscriber();
  CollectingSink sink;
  subscriber->receive(sink, 0ns);
  EXPECT_NE(joined(subscriber->facts().diagnoses).find("could not connect to the publisher"),
            std::string::npos)
      << joined(subscriber->facts().diagnoses);

  const auto publisher = open_publisher();
  CollectingSink at_publisher;
  const auto deadline = Clock::now() + deadline_after;
  while (at_publisher.messages.empty() && Clock::now() < deadline) {
    subscriber->send(text("hello"));
    subscriber->receive(sink, 20ms); // dials again
    publisher->receive(at_publisher, 0ns);
  }
  ASSERT_FALSE(at_publisher.messages.empty());
  EXPECT_TRUE(subscriber->facts().diagnoses.empty());
}

TEST_P(StreamEndpointTest, StrangersHoldingEverySlotGiveWayToANewConnection)
{
  const auto publisher = open_publisher(0); // room for the spare connections alone
  std::vector<UniqueFd> strangers;
  CollectingSink sink;
  for (int i = 0; i < 64; ++i) {
    strangers.push_back(connect_raw());
    publisher->receive(sink, 0ns);
  }
  const auto subscriber = open_subscriber();
  ASSERT_NO_FATAL_FAILURE(join(*publisher, *subscriber, "hello"));
  EXPECT_TRUE(closed_by_publisher(strangers.front().get(), *publisher))
      << "the first stranger makes room";
  EXPECT_NE(
      joined(publisher->facts().notes).find("(connections never adopted) closed to make room"),
      std::string::npos)
      << joined(publisher->facts().notes);
}

std::string kind_name(const ::testing::TestParamInfo<Kind>& kind)
{
  return kind.param.name;
}

INSTANTIATE_TEST_SUITE_P(Kinds, StreamEndpointTest, ::testing::ValuesIn(kinds()), kind_name);

} // namespace
} // namespace netprof
