// UDP endpoints moving real datagrams over loopback, beyond the contract: messages larger than
// a datagram, what their deliveries say about them, batching and flush(), several subscribers
// on a shared medium (multicast and broadcast), and that a process never hears itself there.
// Multicast is sent and joined on lo with TTL 0, so nothing leaves the machine.

#include "udp/fragment_header.hpp"
#include "udp/free_ports.hpp"
#include "udp/udp_transport.hpp"
#include "udp/udp_tuning.hpp"

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <thread>

#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <iostream>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace netprof {
namespace {

using testing::AdoptingSink;
using testing::CollectingSink;

using namespace std::chrono_literals;
using testing::PlannedTransport;

using Bytes = std::vector<std::byte>;
using Arguments = std::vector<std::string>;

constexpr std::size_t queue_length = std::size_t{8} << 20;

Bytes pattern(std::size_t size, std::uint8_t seed)
{
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  }
  return bytes;
}

bool receive_until(Endpoint& endpoint, CollectingSink& sink, std::size_t count)
{
  const auto deadline = Clock::now() + 5s;
  while (sink.messages.size() < count && Clock::now() < deadline) {
    if (endpoint.receive(sink, 10ms) == ReceiveResult::failed) {
      return false;
    }
  }
  return sink.messages.size() >= count;
}

// `from` sends `message` and `to` hands it to `sink` whole: the first message `sink` holds.
::testing::AssertionResult delivers(Endpoint& from, Endpoint& to, const Bytes& message,
                                    CollectingSink& sink)
{
  if (const SendResult result = from.send(message).result; result != SendResult::sent)
    return ::testing::AssertionFailure() << "not sent (" << static_cast<int>(result) << ")";
  if (!receive_until(to, sink, 1))
    return ::testing::AssertionFailure() << "nothing arrived within 5 s";
  if (sink.messages.front() != message)
    return ::testing::AssertionFailure() << "what arrived differs from what was sent";
  return ::testing::AssertionSuccess();
}

// `publisher` takes pattern(size, 0) to pattern(size, count - 1), each sent (or held) at once.
::testing::AssertionResult sends_patterns(Endpoint& publisher, std::uint8_t count, std::size_t size)
{
  for (std::uint8_t i = 0; i < count; ++i)
    if (const SendResult result = publisher.send(pattern(size, i)).result;
        result != SendResult::sent)
      return ::testing::AssertionFailure()
             << "message " << int{i} << " not sent (" << static_cast<int>(result) << ")";
  return ::testing::AssertionSuccess();
}

// Nothing more arrives within a short wait.
bool stays_quiet(Endpoint& endpoint)
{
  CollectingSink sink;
  return endpoint.receive(sink, 50ms) == ReceiveResult::timed_out && sink.messages.empty();
}

// Sends one datagram from a socket of its own, as a stranger would.
void send_raw(const std::string& address, const Bytes& datagram)
{
  const int raw = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(raw, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port =
      htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1))));
  EXPECT_EQ(
      sendto(raw, datagram.data(), datagram.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to),
      static_cast<ssize_t>(datagram.size()));
  close(raw);
}

// Opens endpoints of one UDP mode the way the command line would configure them.
class Opener {
public:
  std::unique_ptr<Endpoint> open(const std::string& mode, Arguments arguments, Role role,
                                 std::size_t queue = queue_length)
  {
    const bool unicast = mode == "udp";
    // A unicast publisher given port 0 gets a free one: the plan refuses port 0 to a publisher,
    // since its subscribers could not find it.
    if (unicast && role == Role::publisher && arguments.at(1) == "127.0.0.1:0")
      arguments[1] = "127.0.0.1:" + std::to_string(udp::pick_free_loopback_ports(1).front());
    // Unicast shows the options every UDP mode shares; the other modes read them too.
    const PlannedTransport transport(
        unicast               ? netprof::udp_transport()
        : mode == "multicast" ? netprof::multicast_transport()
                              : netprof::broadcast_transport(),
        arguments,
        unicast ? std::vector<const netprof::OptionGroup*>{}
                : std::vector<const netprof::OptionGroup*>{&udp::tuning_options()});
    return transport.open({role, role == Role::publisher ? 0U : 1U, queue});
  }
};

// A unicast publisher and two subscribers given its address, none of them heard from yet.
struct TwoSubscribers {
  Opener opener;
  std::unique_ptr<Endpoint> publisher = opener.open("udp", {"-u", "127.0.0.1:0"}, Role::publisher);
  std::unique_ptr<Endpoint> first = subscriber();
  std::unique_ptr<Endpoint> second = subscriber();

private:
  std::unique_ptr<Endpoint> subscriber()
  {
    const std::string address = publisher->facts().local_addresses.at(0);
    return opener.open("udp", {"-u", "127.0.0.1:0", "-u", address}, Role::subscriber);
  }
};

// A unicast publisher and subscriber that know each other.
struct UnicastPair {
  explicit UnicastPair(const Arguments& extra = {}, std::size_t queue = queue_length)
  {
    Arguments publisher_arguments = {"-u", "127.0.0.1:0"};
    publisher_arguments.insert(publisher_arguments.end(), extra.begin(), extra.end());
    publisher = opener.open("udp", publisher_arguments, Role::publisher, queue);
    Arguments subscriber_arguments = {"-u", "127.0.0.1:0", "-u",
                                      publisher->facts().local_addresses.at(0)};
    subscriber_arguments.insert(subscriber_arguments.end(), extra.begin(), extra.end());
    subscriber = opener.open("udp", subscriber_arguments, Role::subscriber, queue);
    // The subscriber's hello teaches the publisher where it is.
    EXPECT_EQ(subscriber->send(pattern(16, 1)).result, SendResult::sent);
    EXPECT_EQ(subscriber->flush().result, SendResult::sent); // as the core does after a hello
    CollectingSink sink;
    EXPECT_TRUE(receive_until(*publisher, sink, 1));
    EXPECT_TRUE(netprof::testing::adopt(*publisher, sink.deliveries.at(0).sender));
    EXPECT_TRUE(publisher->flush().sent()); // as the core does after an acknowledgement
    EXPECT_TRUE(netprof::testing::read_adoption_note(*subscriber));
  }

  Opener opener;
  std::unique_ptr<Endpoint> publisher;
  std::unique_ptr<Endpoint> subscriber;
};

// --- large messages --------------------------------------------------------------------------

TEST(UdpLargeMessage, OneMebibyteArrivesWholeInFragmentsOfTheDefaultSize)
{
  UnicastPair pair;
  const Bytes message = pattern(1 << 20, 2);
  CollectingSink sink;
  ASSERT_TRUE(delivers(*pair.publisher, *pair.subscriber, message, sink));
  const std::size_t fragments = (message.size() + 61999) / 62000;
  EXPECT_EQ(sink.deliveries.front().datagrams, fragments);
  EXPECT_EQ(sink.deliveries.front().wire_bytes,
            message.size() + fragments * udp::fragment_header_size);
}

TEST(UdpLargeMessage, FragmentSizeOptionIsHonoured)
{
  UnicastPair pair({"--fragment-size", "1000"});
  const Bytes message = pattern(4500, 3);
  CollectingSink sink;
  ASSERT_TRUE(delivers(*pair.publisher, *pair.subscriber, message, sink));
  EXPECT_EQ(sink.deliveries.front().datagrams, 5u);
}

TEST(UdpLargeMessage, SmallMessageTravelsAsOneDatagramWithNoOverhead)
{
  UnicastPair pair;
  const Bytes message = pattern(1000, 4);
  ASSERT_EQ(pair.publisher->send(message).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 1));
  EXPECT_EQ(sink.deliveries.front().datagrams, 1u);
  EXPECT_EQ(sink.deliveries.front().wire_bytes, 1000u);
}

TEST(UdpLargeMessage, MessageThatLooksLikeAFragmentArrivesUnchanged)
{
  UnicastPair pair;
  Bytes message = pattern(200, 5);
  std::copy_n("NPFG", 4, reinterpret_cast<char*>(message.data()));
  CollectingSink sink;
  ASSERT_TRUE(delivers(*pair.publisher, *pair.subscriber, message, sink));
  EXPECT_EQ(sink.deliveries.front().wire_bytes, 200 + udp::fragment_header_size);
}

TEST(UdpLargeMessage, LargestMessageFollowsTheReceiveBuffer)
{
  Opener opener;
  const auto endpoint = opener.open("udp", {"-u", "127.0.0.1:0"}, Role::publisher, 3'000'000);
  EXPECT_EQ(endpoint->facts().max_message_size, endpoint->facts().granted_receive_buffer_bytes);
  const auto given = opener.open("udp", {"-u", "127.0.0.1:0", "--udp-max-message", "123456"},
                                 Role::publisher, 3'000'000);
  EXPECT_EQ(given->facts().max_message_size, 123456u);
  EXPECT_EQ(given->send(pattern(123457, 6)).result, SendResult::failed);
}

TEST(UdpLargeMessage, ReachesEveryUnicastSubscriber)
{
  TwoSubscribers peers;
  auto& [opener, publisher, first, second] = peers;
  ASSERT_EQ(first->send(pattern(8, 1)).result, SendResult::sent);
  ASSERT_EQ(second->send(pattern(8, 1)).result, SendResult::sent);
  // Adopted while each is delivered: one receive() may bring both hellos.
  AdoptingSink hellos(*publisher);
  const auto deadline = Clock::now() + 5s;
  while (hellos.count < 2 && Clock::now() < deadline) {
    ASSERT_NE(publisher->receive(hellos, 10ms), ReceiveResult::failed);
  }
  ASSERT_EQ(publisher->facts().peer_addresses.size(), 2u);
  const Bytes message = pattern(300'000, 7);
  ASSERT_EQ(publisher->send(message).result, SendResult::sent);
  for (Endpoint* subscriber : {first.get(), second.get()}) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, 1));
    EXPECT_TRUE(sink.messages.front() == message);
  }
}

TEST(UdpLargeMessage, ForeignFragmentsAreDroppedAndNoted)
{
  UnicastPair pair;
  // A datagram with the fragment magic that no sender following the rules produces.
  Bytes bogus(100, std::byte{0});
  std::copy_n("NPFG\x01", 5, reinterpret_cast<char*>(bogus.data()));
  ASSERT_EQ(pair.subscriber->send(bogus).result, SendResult::sent); // framed: arrives as sent
  send_raw(pair.publisher->facts().local_addresses.at(0), bogus);
  const Bytes marker = pattern(10, 8);
  ASSERT_EQ(pair.subscriber->send(marker).result, SendResult::sent);

  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.publisher, sink, 2));
  EXPECT_TRUE(stays_quiet(*pair.publisher)) << "the raw fragment was delivered";
  EXPECT_TRUE(sink.messages[0] == bogus);
  EXPECT_TRUE(sink.messages[1] == marker);
  const std::vector<std::string> notes = pair.publisher->facts().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "reassembly: fragments dropped: 1 malformed"),
            notes.end())
      << ::testing::PrintToString(notes);
}

// --- sender handles --------------------------------------------------------------------------

// A handle names its own sender, whatever was delivered since: the publisher adopts the first
// subscriber after the second one's hello, each once however often it is adopted, and each
// hears the data once.
TEST(UdpSenderHandle, NamesItsOwnSenderWhateverCameSince)
{
  TwoSubscribers peers;
  auto& [opener, publisher, first, second] = peers;
  CollectingSink hellos;
  ASSERT_EQ(first->send(pattern(8, 1)).result, SendResult::sent);
  ASSERT_TRUE(receive_until(*publisher, hellos, 1));
  ASSERT_EQ(second->send(pattern(8, 2)).result, SendResult::sent);
  ASSERT_TRUE(receive_until(*publisher, hellos, 2));
  const netprof::PeerHandle first_sender = hellos.deliveries[0].sender;
  const netprof::PeerHandle second_sender = hellos.deliveries[1].sender;
  ASSERT_FALSE(first_sender == second_sender);

  EXPECT_TRUE(netprof::testing::adopt(*publisher, second_sender));
  EXPECT_TRUE(netprof::testing::adopt(*publisher, first_sender));
  EXPECT_TRUE(netprof::testing::adopt(*publisher, second_sender));
  EXPECT_EQ(publisher->facts().peer_addresses, (Arguments{second->facts().local_addresses.at(0),
                                                          first->facts().local_addresses.at(0)}));
  const Bytes message = pattern(100, 3);
  ASSERT_EQ(publisher->send(message).result, SendResult::sent);
  for (Endpoint* subscriber : {first.get(), second.get()}) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, 1));
    EXPECT_TRUE(sink.messages.front() == message);
    EXPECT_TRUE(stays_quiet(*subscriber)) << "heard twice";
  }
}

// --- one peer: connected sockets -------------------------------------------------------------

TEST(UdpSinglePeer, SubscriberHearsOnlyItsPublisher)
{
  UnicastPair pair;
  send_raw(pair.subscriber->facts().local_addresses.at(0), pattern(20, 3));
  EXPECT_TRUE(stays_quiet(*pair.subscriber));
  const Bytes message = pattern(64, 4);
  CollectingSink sink;
  ASSERT_TRUE(delivers(*pair.publisher, *pair.subscriber, message, sink));
}

// A second subscriber whose hello the publisher (of a pair with one subscriber) has adopted.
std::unique_ptr<Endpoint> adopted_second_subscriber(UnicastPair& pair)
{
  auto late = pair.opener.open(
      "udp", {"-u", "127.0.0.1:0", "-u", pair.publisher->facts().local_addresses.at(0)},
      Role::subscriber);
  EXPECT_EQ(late->send(pattern(16, 1)).result, SendResult::sent);
  AdoptingSink hello(*pair.publisher);
  const auto deadline = Clock::now() + 5s;
  while (hello.count < 1 && Clock::now() < deadline) {
    EXPECT_NE(pair.publisher->receive(hello, 10ms), ReceiveResult::failed);
  }
  return late;
}

TEST(UdpSinglePeer, PublisherStillHearsANewcomerAfterItsFirstSubscriber)
{
  UnicastPair pair; // the publisher now sends to its one subscriber through a connected twin
  const auto late = adopted_second_subscriber(pair);
  ASSERT_EQ(pair.publisher->facts().peer_addresses.size(), 2u);

  const Bytes message = pattern(64, 5);
  ASSERT_EQ(pair.publisher->send(message).result, SendResult::sent);
  for (Endpoint* subscriber : {pair.subscriber.get(), late.get()}) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, 1));
    EXPECT_TRUE(sink.messages.front() == message);
  }
  // The first subscriber's datagrams still arrive, now through the twin.
  const Bytes echo = pattern(32, 6);
  CollectingSink sink;
  ASSERT_TRUE(delivers(*pair.subscriber, *pair.publisher, echo, sink));
}

TEST(UdpSinglePeer, ASecondSubscribersDatagramsAreReadAtOnceNotWithTheLobbysStrays)
{
  // Was: the first socket, where every subscriber but the twin's peer now speaks, was read on
  // every 16th look or after a 20 ms wait in the twin, so with two subscribers in ping-pong the
  // second one's echoes came back 24 ms late (40 round trips a second).
  UnicastPair pair;
  const auto late = adopted_second_subscriber(pair);
  ASSERT_EQ(pair.publisher->facts().peer_addresses.size(), 2u);

  const Bytes echo = pattern(32, 7);
  ASSERT_EQ(late->send(echo).result, SendResult::sent);
  std::this_thread::sleep_for(50ms); // queued on loopback long before the look below
  CollectingSink sink;
  EXPECT_EQ(pair.publisher->receive(sink, 0ms), ReceiveResult::received);
  ASSERT_EQ(sink.messages.size(), 1u);
  EXPECT_TRUE(sink.messages.front() == echo);
}

TEST(UdpSinglePeer, SubscriberStartedBeforeItsPublisherKeepsSendingAndReceiving)
{
  // A port nobody listens on: the kernel answers the hello with ICMP port unreachable, which
  // a connected socket reports on its next call.
  const int placeholder = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(placeholder, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(placeholder, reinterpret_cast<sockaddr*>(&any), sizeof any), 0);
  socklen_t length = sizeof any;
  ASSERT_EQ(getsockname(placeholder, reinterpret_cast<sockaddr*>(&any), &length), 0);
  close(placeholder);
  Opener opener;
  const auto subscriber = opener.open(
      "udp", {"-u", "127.0.0.1:0", "-u", "127.0.0.1:" + std::to_string(ntohs(any.sin_port))},
      Role::subscriber);
  for (int hello = 0; hello < 3; ++hello) {
    ASSERT_EQ(subscriber->send(pattern(16, 1)).result, SendResult::sent);
    CollectingSink sink;
    EXPECT_EQ(subscriber->receive(sink, 20ms), ReceiveResult::timed_out);
    EXPECT_EQ(subscriber->receive(sink, 0ms), ReceiveResult::timed_out);
  }
}

// --- batching ----------------------------------------------------------------------------------

TEST(UdpBatch, HeldUntilFlushThenSentInOrder)
{
  UnicastPair pair({"--udp-batch", "4"});
  ASSERT_TRUE(sends_patterns(*pair.publisher, 3, 100));
  EXPECT_TRUE(stays_quiet(*pair.subscriber)) << "three of four are held";
  ASSERT_EQ(pair.publisher->flush().result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 3));
  for (std::uint8_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(sink.messages[i] == pattern(100, i)) << int{i};
    EXPECT_EQ(sink.deliveries[i].datagrams, 1u) << "one datagram per message";
  }
  EXPECT_EQ(pair.publisher->flush().result, SendResult::sent) << "an empty flush is fine";
}

TEST(UdpBatch, FullBatchGoesWithoutFlush)
{
  UnicastPair pair({"--udp-batch", "4"});
  ASSERT_TRUE(sends_patterns(*pair.publisher, 4, 60));
  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 4));
  EXPECT_TRUE(sink.messages[3] == pattern(60, 3));
}

TEST(UdpBatch, LargeMessageGoesAfterWhatIsHeld)
{
  UnicastPair pair({"--udp-batch", "8"});
  const Bytes large = pattern(200'000, 9);
  ASSERT_EQ(pair.publisher->send(pattern(50, 1)).result, SendResult::sent);
  ASSERT_EQ(pair.publisher->send(large).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 2));
  EXPECT_TRUE(sink.messages[0] == pattern(50, 1));
  EXPECT_TRUE(sink.messages[1] == large);
}

TEST(UdpBatch, ThousandMessagesInBatchesOfThirtyTwoArriveInOrder)
{
  UnicastPair pair({"--udp-batch", "32"});
  CollectingSink sink;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    Bytes message = pattern(64, 10);
    std::copy_n(reinterpret_cast<const std::byte*>(&i), sizeof i, message.begin());
    ASSERT_EQ(pair.publisher->send(message).result, SendResult::sent);
    if (i % 64 == 63) {
      ASSERT_NE(pair.subscriber->receive(sink, 0ns), ReceiveResult::failed);
    }
  }
  ASSERT_EQ(pair.publisher->flush().result, SendResult::sent);
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 1000)) << sink.messages.size();
  for (std::uint32_t i = 0; i < 1000; ++i) {
    std::uint32_t index = 0;
    std::copy_n(sink.messages[i].begin(), sizeof index, reinterpret_cast<std::byte*>(&index));
    ASSERT_EQ(index, i);
  }
}

TEST(UdpBatch, MixedSizesArriveAsOneDatagramEachWithAndWithoutGso)
{
  // Runs of equal sizes, a shorter message ending a run, a longer one starting the next.
  const std::vector<std::size_t> sizes = {100, 100, 100, 40, 100, 300, 300, 7, 7, 1200, 100};
  for (const char* gso : {"on", "off"}) {
    UnicastPair pair({"--udp-batch", "16", "--udp-gso", gso});
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      ASSERT_EQ(pair.publisher->send(pattern(sizes[i], static_cast<std::uint8_t>(i))).result,
                SendResult::sent);
    }
    ASSERT_EQ(pair.publisher->flush().result, SendResult::sent);
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*pair.subscriber, sink, sizes.size())) << gso;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_TRUE(sink.messages[i] == pattern(sizes[i], static_cast<std::uint8_t>(i)))
          << "gso " << gso << ", message " << i;
      EXPECT_EQ(sink.deliveries[i].datagrams, 1u);
    }
    EXPECT_TRUE(stays_quiet(*pair.subscriber)) << gso;
    for (const std::string& note : pair.publisher->facts().notes) {
      EXPECT_EQ(note.find("GSO"), std::string::npos) << "loopback does GSO: " << note;
    }
  }
}

TEST(UdpBatch, MoreThanSixtyFourEqualMessagesSplitIntoSeveralGsoRuns)
{
  UnicastPair pair({"--udp-batch", "200"});
  ASSERT_TRUE(sends_patterns(*pair.publisher, 200, 500));
  CollectingSink sink;
  ASSERT_TRUE(receive_until(*pair.subscriber, sink, 200));
  for (std::uint8_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(sink.messages[i] == pattern(500, i)) << int{i};
  }
}

// In a network namespace of its own whose lo has a 1500-byte MTU, where the kernel refuses a
// GSO segment larger than the MTU: run in a child (a death test), as unsharing changes the
// whole process. Exits 0 when the batch still arrived and the refusal was noted, 77 when the
// namespace cannot be made (no privilege), 1 otherwise.
void expect_fallback_when_gso_is_refused()
{
  if (unshare(CLONE_NEWNET) != 0) {
    std::_Exit(77);
  }
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  request.ifr_mtu = 1500;
  if (fd < 0 || ioctl(fd, SIOCSIFMTU, &request) != 0) {
    std::_Exit(77);
  }
  request.ifr_flags = IFF_UP;
  if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
    std::_Exit(77);
  }
  close(fd);

  // A small message first: the refusal comes at the batch's second entry, after the first
  // went out, and the rest must still follow it.
  const std::vector<std::size_t> sizes = {40, 1600, 1600, 1600};
  UnicastPair pair({"--udp-batch", "4"});
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (pair.publisher->send(pattern(sizes[i], static_cast<std::uint8_t>(i))).result !=
        SendResult::sent) {
      std::cerr << "send " << i << " failed";
      std::_Exit(1);
    }
  }
  CollectingSink sink;
  if (!receive_until(*pair.subscriber, sink, sizes.size())) {
    std::cerr << "received " << sink.messages.size() << " of " << sizes.size();
    std::_Exit(1);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sink.messages[i] != pattern(sizes[i], static_cast<std::uint8_t>(i))) {
      std::cerr << "message " << i << " altered or out of order";
      std::_Exit(1);
    }
  }
  if (!stays_quiet(*pair.subscriber)) {
    std::cerr << "a message arrived twice";
    std::_Exit(1);
  }
  for (const std::string& note : pair.publisher->facts().notes) {
    if (note.rfind("UDP GSO refused by the kernel (", 0) == 0) {
      std::_Exit(0);
    }
  }
  std::cerr << "no note about GSO";
  std::_Exit(1);
}

bool has_sys_admin()
{
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(SYS_capget, &header, data) == 0 &&
         (data[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32))) != 0;
}

TEST(UdpBatchDeathTest, FallsBackToOneEntryPerMessageWhenTheKernelRefusesGso)
{
  if (!has_sys_admin()) {
    GTEST_SKIP() << "needs CAP_SYS_ADMIN for a network namespace of its own (run as root)";
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(expect_fallback_when_gso_is_refused(), ::testing::ExitedWithCode(0), "");
}

// --- shared media --------------------------------------------------------------------------------

struct Medium {
  std::string mode;
  Arguments arguments; // the same for every process
};

void PrintTo(const Medium& medium, std::ostream* out)
{
  *out << medium.mode;
}

class SharedMedium : public ::testing::TestWithParam<Medium> {
protected:
  std::unique_ptr<Endpoint> open(Role role)
  {
    return m_opener.open(GetParam().mode, GetParam().arguments, role);
  }

private:
  Opener m_opener;
};

TEST_P(SharedMedium, EverySubscriberHearsThePublisherOnceAndNobodyHearsItself)
{
  const auto publisher = open(Role::publisher);
  std::vector<std::unique_ptr<Endpoint>> subscribers;
  for (int i = 0; i < 3; ++i) {
    subscribers.push_back(open(Role::subscriber));
  }
  const Bytes data = pattern(500, 11);
  ASSERT_EQ(publisher->send(data).result, SendResult::sent);
  for (const auto& subscriber : subscribers) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, 1));
    EXPECT_TRUE(sink.messages.front() == data);
    EXPECT_TRUE(stays_quiet(*subscriber)) << "heard twice";
  }
  EXPECT_TRUE(stays_quiet(*publisher)) << "the publisher heard its own data";

  // The back channel: the publisher and the other subscribers hear it, its sender does not.
  const Bytes echo = pattern(60, 12);
  ASSERT_EQ(subscribers[0]->send(echo).result, SendResult::sent);
  CollectingSink at_publisher;
  ASSERT_TRUE(receive_until(*publisher, at_publisher, 1));
  EXPECT_TRUE(at_publisher.messages.front() == echo);
  EXPECT_TRUE(stays_quiet(*subscribers[0]));
  CollectingSink at_other;
  EXPECT_TRUE(receive_until(*subscribers[1], at_other, 1));
}

TEST_P(SharedMedium, LargeMessageReachesEverySubscriber)
{
  const auto publisher = open(Role::publisher);
  const auto first = open(Role::subscriber);
  const auto second = open(Role::subscriber);
  const Bytes message = pattern(1'500'000, 13);
  ASSERT_EQ(publisher->send(message).result, SendResult::sent);
  for (Endpoint* subscriber : {first.get(), second.get()}) {
    CollectingSink sink;
    ASSERT_TRUE(receive_until(*subscriber, sink, 1));
    EXPECT_TRUE(sink.messages.front() == message);
    EXPECT_EQ(sink.deliveries.front().datagrams, 25u);
  }
  EXPECT_TRUE(stays_quiet(*publisher));
}

TEST_P(SharedMedium, FactsNameTheMediumAndIgnorePeerLearning)
{
  const auto publisher = open(Role::publisher);
  const netprof::EndpointFacts facts = publisher->facts();
  EXPECT_EQ(facts.transport, GetParam().mode);
  ASSERT_EQ(facts.local_addresses.size(), 2u);
  EXPECT_EQ(facts.local_addresses[0], GetParam().arguments[1]) << "the shared address first";
  EXPECT_EQ(facts.peer_addresses, Arguments{GetParam().arguments[1]});
  EXPECT_TRUE(facts.capabilities.shared_medium);
  EXPECT_FALSE(facts.capabilities.addresses_peers_one_by_one);

  const auto subscriber = open(Role::subscriber);
  ASSERT_EQ(subscriber->send(pattern(16, 1)).result, SendResult::sent);
  CollectingSink hello;
  ASSERT_TRUE(receive_until(*publisher, hello, 1));
  EXPECT_TRUE(netprof::testing::adopt(*publisher, hello.deliveries.front().sender))
      << "reaches everyone";
  EXPECT_EQ(publisher->facts().peer_addresses.size(), 1u);
}

std::string free_port()
{
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return std::to_string(ntohs(address.sin_port));
}

INSTANTIATE_TEST_SUITE_P(Loopback, SharedMedium,
                         ::testing::Values(Medium{"multicast",
                                                  {"-m", "239.255.0.1:" + free_port(),
                                                   "--mc-interface", "127.0.0.1", "--mc-ttl", "0"}},
                                           Medium{"broadcast",
                                                  {"-b", "127.255.255.255:" + free_port()}}),
                         [](const auto& instance) { return instance.param.mode; });

TEST(MulticastFacts, NoteSaysWhereItJoinedAndHow)
{
  Opener opener;
  const auto endpoint = opener.open("multicast",
                                    {"-m", "239.255.0.1:" + free_port(), "--mc-interface", "lo",
                                     "--mc-ttl", "0", "--mc-loopback", "off"},
                                    Role::subscriber);
  const std::vector<std::string> notes = endpoint->facts().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "multicast group 239.255.0.1 joined on lo (127.0.0.1), TTL 0, loopback off"),
            notes.end())
      << ::testing::PrintToString(notes);
}

} // namespace
} // namespace netprof
