// UDP-specific behaviour beyond the transport contract: strict -u parsing with one-line
// messages, role rules, the local pair's arguments, bind errors and peer learning.
// Loopback addresses only.

#include "udp/free_ports.hpp"
#include "udp/socket_address.hpp"
#include "udp/udp_transport.hpp"
#include "udp/udp_tuning.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"
#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace netprof {
namespace {

using testing::AdoptingSink;
using testing::CountingSink;

using namespace std::chrono_literals;
using testing::PlannedTransport;

using Bytes = std::vector<std::byte>;

constexpr std::size_t queue_length = std::size_t{1} << 20;

std::string usage_message(const std::string& value)
{
  try {
    udp::parse_ipv4_endpoint(value, "-u");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

std::unique_ptr<PlannedTransport> udp_with(const std::vector<std::string>& arguments)
{
  return netprof::testing::planned(netprof::udp_transport(), arguments);
}

// A publisher on a free loopback port: the plan refuses port 0 to a publisher, since its
// subscribers could not find it.
std::unique_ptr<Endpoint> udp_publisher(std::size_t queue)
{
  const std::string own = "127.0.0.1:" + std::to_string(udp::pick_free_loopback_ports(1).front());
  return udp_with({"-u", own})->open({Role::publisher, 0, queue});
}

std::string validate_message(const std::vector<std::string>& arguments, Role role)
{
  try {
    udp_with(arguments)->plan_for(role);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string local_address(const Endpoint& endpoint)
{
  return endpoint.facts().local_addresses.at(0);
}

std::uint16_t port_of(const std::string& address)
{
  return static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

bool receive_until(Endpoint& endpoint, netprof::MessageSink& sink, const std::size_t& received,
                   std::size_t count)
{
  const auto deadline = Clock::now() + 5s;
  while (received < count && Clock::now() < deadline) {
    if (endpoint.receive(sink, 10ms) == ReceiveResult::failed) {
      return false;
    }
  }
  return received >= count;
}

// --- split_host_port / parse_ipv4_endpoint -----------------------------------------------

TEST(UdpAddress, SplitsHostAndPort)
{
  const udp::HostPort parts = udp::split_host_port("127.0.0.1:40000", "-u");
  EXPECT_EQ(parts.host, "127.0.0.1");
  EXPECT_EQ(parts.port, 40000);
  EXPECT_EQ(udp::split_host_port("localhost:0", "-u").port, 0);
  EXPECT_EQ(udp::split_host_port("localhost:65535", "-u").port, 65535);
}

TEST(UdpAddress, ParsesDottedQuadLiterally)
{
  const sockaddr_in address = udp::parse_ipv4_endpoint("127.0.0.1:40000", "-u");
  EXPECT_EQ(address.sin_family, AF_INET);
  EXPECT_EQ(ntohl(address.sin_addr.s_addr), INADDR_LOOPBACK);
  EXPECT_EQ(ntohs(address.sin_port), 40000);
  EXPECT_EQ(udp::to_string(address), "127.0.0.1:40000");
}

TEST(UdpAddress, ResolvesLocalhost)
{
  const sockaddr_in address = udp::parse_ipv4_endpoint("localhost:5000", "-u");
  EXPECT_EQ(udp::to_string(address), "127.0.0.1:5000");
}

TEST(UdpAddress, AcceptsAnyAddressAndPortZero)
{
  EXPECT_EQ(udp::to_string(udp::parse_ipv4_endpoint("0.0.0.0:0", "-u")), "0.0.0.0:0");
}

TEST(UdpAddress, MessageNamesTheFlagAndTheValue)
{
  try {
    udp::parse_ipv4_endpoint("127.0.0.1", "--udp");
    FAIL() << "no error";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "bad --udp value '127.0.0.1': expected host:port");
  }
}

struct BadValue {
  std::string value;
  std::string message;
};

// Names each case by its value in test listings (and CTest), instead of its raw bytes.
[[maybe_unused]] void PrintTo(const BadValue& bad, std::ostream* out)
{
  *out << "'" << bad.value << "'";
}

class UdpBadAddress : public ::testing::TestWithParam<BadValue> {};

TEST_P(UdpBadAddress, IsRefusedWithOneClearLine)
{
  const std::string message = usage_message(GetParam().value);
  EXPECT_EQ(message, "bad -u value '" + GetParam().value + "': " + GetParam().message);
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, UdpBadAddress,
    ::testing::Values(
        BadValue{"127.0.0.1", "expected host:port"}, BadValue{"", "expected host:port"},
        BadValue{":40000", "expected host:port, the host is missing (0.0.0.0 means any)"},
        BadValue{"127.0.0.1:", "expected host:port, the port is missing"},
        BadValue{"127.0.0.1:abc", "the port 'abc' is not a number 0..65535"},
        BadValue{"127.0.0.1:40000x", "the port '40000x' is not a number 0..65535"},
        BadValue{"127.0.0.1:4 0", "the port '4 0' is not a number 0..65535"},
        BadValue{"127.0.0.1:-1", "the port '-1' is not a number 0..65535"},
        BadValue{"127.0.0.1:+1", "the port '+1' is not a number 0..65535"},
        BadValue{"127.0.0.1:0x10", "the port '0x10' is not a number 0..65535"},
        BadValue{"127.0.0.1:65536", "the port 65536 is not in 0..65535"},
        BadValue{"127.0.0.1:99999999999999999999",
                 "the port 99999999999999999999 is not in 0..65535"},
        BadValue{"127.0.0.256:1", "'127.0.0.256' is not an IPv4 address a.b.c.d"},
        BadValue{"127.1:1", "'127.1' is not an IPv4 address a.b.c.d"},
        BadValue{"127.0.0.1.:1", "'127.0.0.1.' is not an IPv4 address a.b.c.d"},
        BadValue{"[::1]:40000", "IPv6 is not supported; give an IPv4 address or a host name"},
        BadValue{"::1:40000", "IPv6 is not supported; give an IPv4 address or a host name"},
        BadValue{"local host:1", "'local host' is not a valid host name"},
        BadValue{"-host:1", "'-host' is not a valid host name"},
        BadValue{"a..b:1", "'a..b' is not a valid host name"},
        BadValue{"host/x:1", "'host/x' is not a valid host name"}));

TEST(UdpAddress, UnresolvableHostSaysSo)
{
  // .invalid is reserved (RFC 6761): resolvers answer "no such name" without asking anyone.
  const std::string message = usage_message("no-such-host.invalid:1");
  EXPECT_EQ(message.rfind("bad -u value 'no-such-host.invalid:1': cannot resolve "
                          "'no-such-host.invalid' to an IPv4 address: ",
                          0),
            0u)
      << message;
}

// --- the transport's options and role rules ----------------------------------------------

TEST(UdpTransport, SelectedOnlyWhenUGiven)
{
  EXPECT_TRUE(udp_with({"-u", "127.0.0.1:1"})->selected());
  EXPECT_FALSE(udp_with({})->selected());
}

TEST(UdpTransport, LongFormAndShortFormCompose)
{
  EXPECT_EQ(validate_message({"--udp", "127.0.0.1:0", "-u", "127.0.0.1:40001"}, Role::subscriber),
            "(no error)");
}

TEST(UdpTransport, SubscriberNeedsItsOwnAddressAndAPortItsPublisherCanFind)
{
  EXPECT_EQ(validate_message({}, Role::subscriber),
            "a subscriber needs its own address: -u own_host:port, then -u publisher_host:port "
            "(or none: its publisher, given this address, contacts it)");
  // MADARA's form: only its own address, where its publisher contacts it.
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:40001"}, Role::subscriber), "(no error)");
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0"}, Role::subscriber)
                .find("a subscriber given only its own address waits for its publisher"),
            std::string("bad -u value '127.0.0.1:0': ").size());
}

TEST(UdpTransport, PublisherMayHaveNoPeersButNeedsItsOwnAddress)
{
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:40000"}, Role::publisher), "(no error)");
  EXPECT_EQ(validate_message({}, Role::publisher).rfind("a publisher needs its own address", 0),
            0u);
}

TEST(UdpTransport, PublisherMustNotBindPortZero)
{
  // No subscriber could be given the port the system picks, so none could say hello.
  const std::string expected = "bad -u value '127.0.0.1:0': a publisher needs a port other "
                               "than 0, since its subscribers send to it (only a subscriber's "
                               "own port may be 0)";
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0"}, Role::publisher), expected);
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0", "-u", "127.0.0.1:40001"}, Role::publisher),
            expected);
  EXPECT_EQ(
      validate_message({"-u", "0.0.0.0:0"}, Role::publisher).rfind("bad -u value '0.0.0.0:0'", 0),
      0u);
}

TEST(UdpTransport, SubscriberMayBindPortZero)
{
  // The publisher learns the subscriber's port from its hello.
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0", "-u", "127.0.0.1:40001"}, Role::subscriber),
            "(no error)");
}

TEST(UdpTransport, PeerMustNotHavePortZero)
{
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0", "-u", "127.0.0.1:0"}, Role::subscriber),
            "bad -u value '127.0.0.1:0': a peer needs a port other than 0");
}

TEST(UdpTransport, BadPeerValueIsReportedByValidate)
{
  EXPECT_EQ(validate_message({"-u", "127.0.0.1:0", "-u", "127.0.0.1"}, Role::subscriber),
            "bad -u value '127.0.0.1': expected host:port");
}

// --- local pair ----------------------------------------------------------------------------

TEST(UdpLocalPair, PicksTwoFreeLoopbackPortsWhenNoneGiven)
{
  const LocalPairArguments pair = udp_with({})->pair();
  ASSERT_EQ(pair.publisher.size(), 2u);
  ASSERT_EQ(pair.subscriber.size(), 4u);
  EXPECT_EQ(pair.publisher[0], "-u");
  EXPECT_EQ(pair.subscriber[0], "-u");
  EXPECT_EQ(pair.subscriber[2], "-u");
  EXPECT_EQ(pair.subscriber[3], pair.publisher[1]) << "the subscriber sends to the publisher";
  EXPECT_NE(pair.subscriber[1], pair.publisher[1]);
  for (const std::string& address : {pair.publisher[1], pair.subscriber[1]}) {
    EXPECT_EQ(address.rfind("127.0.0.1:", 0), 0u) << address;
    EXPECT_NE(port_of(address), 0);
  }
}

TEST(UdpLocalPair, EachChildsArgumentsPassItsOwnRolesValidation)
{
  // The parent does not validate itself as a publisher; each child does, with its role.
  const LocalPairArguments pair = udp_with({"--udp-batch", "4"})->pair();
  EXPECT_EQ(validate_message(pair.publisher, Role::publisher), "(no error)");
  EXPECT_EQ(validate_message(pair.subscriber, Role::subscriber), "(no error)");
}

TEST(UdpLocalPair, TwoGivenAddressesAreSwappedForTheSubscriber)
{
  const LocalPairArguments pair =
      udp_with({"-u", "127.0.0.1:40000", "-u", "127.0.0.1:40001"})->pair();
  EXPECT_EQ(pair.publisher,
            (std::vector<std::string>{"-u", "127.0.0.1:40000", "-u", "127.0.0.1:40001"}));
  EXPECT_EQ(pair.subscriber,
            (std::vector<std::string>{"-u", "127.0.0.1:40001", "-u", "127.0.0.1:40000"}));
}

TEST(UdpLocalPair, OneOrThreeAddressesAreRefused)
{
  EXPECT_THROW(udp_with({"-u", "127.0.0.1:40000"})->pair(), UsageError);
  EXPECT_THROW(
      udp_with({"-u", "127.0.0.1:40000", "-u", "127.0.0.1:40001", "-u", "127.0.0.1:40002"})->pair(),
      UsageError);
}

// --- open ----------------------------------------------------------------------------------

TEST(UdpOpen, FactsShowTheBoundPortNotZero)
{
  const auto endpoint = udp_publisher(0);
  const netprof::EndpointFacts facts = endpoint->facts();
  EXPECT_EQ(facts.transport, "udp");
  EXPECT_NE(port_of(local_address(*endpoint)), 0);
  EXPECT_TRUE(facts.peer_addresses.empty());
  // Without --udp-max-message: what the receive buffer holds, at least one whole datagram.
  EXPECT_EQ(facts.max_message_size, std::clamp<std::size_t>(facts.granted_receive_buffer_bytes,
                                                            65507, udp::default_max_message_cap));
  EXPECT_EQ(facts.requested_buffer_bytes, 0u);
  EXPECT_GT(facts.granted_receive_buffer_bytes, 0u) << "the OS default is reported";
}

TEST(UdpOpen, SecondPublisherOnTheSamePortFails)
{
  const auto first = udp_publisher(0);
  const std::string address = local_address(*first);
  const auto second = udp_with({"-u", address});
  try {
    second->open({Role::publisher, 0, 0});
    FAIL() << "the second bind succeeded";
  } catch (const TransportError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot bind UDP " + address + ": Address already in use");
  }
}

// Drops CAP_NET_ADMIN from this process's effective set, as an unprivileged user has it.
bool drop_net_admin()
{
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return false;
  }
  data[CAP_NET_ADMIN / 32].effective &= ~(1U << (CAP_NET_ADMIN % 32));
  return syscall(SYS_capset, &header, data) == 0;
}

bool has_net_admin()
{
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(SYS_capget, &header, data) == 0 &&
         (data[CAP_NET_ADMIN / 32].effective & (1U << (CAP_NET_ADMIN % 32))) != 0;
}

bool has_note(const netprof::EndpointFacts& facts, const std::string& note)
{
  return std::find(facts.notes.begin(), facts.notes.end(), note) != facts.notes.end();
}

constexpr std::size_t huge = std::size_t{1} << 30;

// Run in a child (a death test), so that dropping the capability leaves this process alone.
void expect_clamp_note_without_net_admin()
{
  if (!drop_net_admin()) {
    std::cerr << "cannot drop CAP_NET_ADMIN";
    std::_Exit(2);
  }
  const auto endpoint = udp_publisher(huge);
  const netprof::EndpointFacts facts = endpoint->facts();
  if (facts.granted_receive_buffer_bytes >= huge) {
    std::_Exit(0); // net.core.rmem_max allows 1 GiB here: nothing to clamp
  }
  const std::string expected = "receive buffer clamped to " +
                               std::to_string(facts.granted_receive_buffer_bytes) +
                               " B by net.core.rmem_max (requested " + std::to_string(huge) + " B)";
  if (!has_note(facts, expected)) {
    std::cerr << "missing note: " << expected;
    std::_Exit(1);
  }
  std::_Exit(0);
}

TEST(UdpOpenDeathTest, ClampedBufferIsReportedInANoteWithoutNetAdmin)
{
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(expect_clamp_note_without_net_admin(), ::testing::ExitedWithCode(0), "");
}

TEST(UdpOpen, ClampedBufferIsForcedWithNetAdmin)
{
  if (!has_net_admin()) {
    GTEST_SKIP() << "no CAP_NET_ADMIN: SO_RCVBUFFORCE is not allowed (covered by the clamp test)";
  }
  const auto endpoint = udp_publisher(huge);
  const netprof::EndpointFacts facts = endpoint->facts();
  EXPECT_EQ(facts.requested_buffer_bytes, huge);
  // The kernel's own ceiling is INT_MAX / 2, one byte short of 1 GiB.
  EXPECT_GE(facts.granted_receive_buffer_bytes, huge - 1);
  EXPECT_TRUE(has_note(facts, "receive buffer set beyond net.core.rmem_max with SO_RCVBUFFORCE: "
                              "granted " +
                                  std::to_string(facts.granted_receive_buffer_bytes) +
                                  " B (requested " + std::to_string(huge) + " B)"))
      << ::testing::PrintToString(facts.notes);
  EXPECT_TRUE(has_note(facts, "send buffer set beyond net.core.wmem_max with SO_SNDBUFFORCE: "
                              "granted " +
                                  std::to_string(facts.granted_send_buffer_bytes) +
                                  " B (requested " + std::to_string(huge) + " B)"))
      << ::testing::PrintToString(facts.notes);
}

TEST(UdpOpen, GrantedBufferIsWhatWasAskedWhenWithinLimits)
{
  constexpr std::size_t modest = 64 * 1024; // below any default [rw]mem_max
  const auto endpoint = udp_publisher(modest);
  const netprof::EndpointFacts facts = endpoint->facts();
  EXPECT_EQ(facts.granted_receive_buffer_bytes, modest);
  EXPECT_EQ(facts.granted_send_buffer_bytes, modest);
  EXPECT_TRUE(facts.notes.empty());
}

// --- sending and peers -----------------------------------------------------------------------

TEST(UdpSend, PublisherWithoutPeersSendsToNobody)
{
  const auto endpoint = udp_publisher(0);
  const Bytes message(10);
  EXPECT_EQ(endpoint->send(message).result, SendResult::sent);
}

TEST(UdpSend, PublisherLearnsEverySubscriberInABatchAndReachesThemAll)
{
  const auto publisher = udp_publisher(queue_length);
  const std::string publisher_address = local_address(*publisher);
  const auto first = udp_with({"-u", "127.0.0.1:0", "-u", publisher_address})
                         ->open({Role::subscriber, 1, queue_length});
  const auto second = udp_with({"-u", "127.0.0.1:0", "-u", publisher_address})
                          ->open({Role::subscriber, 2, queue_length});

  // Both hellos, and a repeat, are waiting before the publisher looks: they come in one batch.
  const Bytes hello(4);
  ASSERT_EQ(first->send(hello).result, SendResult::sent);
  ASSERT_EQ(second->send(hello).result, SendResult::sent);
  ASSERT_EQ(first->send(hello).result, SendResult::sent);
  AdoptingSink adopting(*publisher);
  ASSERT_TRUE(receive_until(*publisher, adopting, adopting.count, 3));

  const std::vector<std::string> peers = publisher->facts().peer_addresses;
  EXPECT_EQ(peers, (std::vector<std::string>{local_address(*first), local_address(*second)}));

  // Two peers: the sendmmsg path.
  ASSERT_EQ(publisher->send(Bytes(100)).result, SendResult::sent);
  CountingSink at_first;
  CountingSink at_second;
  EXPECT_TRUE(receive_until(*first, at_first, at_first.count, 1));
  EXPECT_TRUE(receive_until(*second, at_second, at_second.count, 1));
}

TEST(UdpSend, ExplicitPeersAreDeduplicated)
{
  const auto endpoint =
      udp_with({"-u", "127.0.0.1:0", "-u", "127.0.0.1:40001", "-u", "localhost:40001"})
          ->open({Role::subscriber, 1, 0});
  EXPECT_EQ(endpoint->facts().peer_addresses, std::vector<std::string>{"127.0.0.1:40001"});
}

TEST(UdpSend, AdoptingAHandleThatNamesNoOneAddsNoPeer)
{
  const auto endpoint = udp_publisher(0);
  EXPECT_FALSE(netprof::testing::adopt(*endpoint, netprof::PeerHandle{}));
  EXPECT_FALSE(netprof::testing::adopt(*endpoint, netprof::PeerHandle{42}))
      << "not a handle UDP made";
  const std::byte answer[8]{};
  EXPECT_EQ(endpoint->reply(netprof::PeerHandle{42}, answer, netprof::PeerFate::keep_unadopted)
                .sent.result,
            SendResult::failed)
      << "nobody to answer";
  EXPECT_TRUE(endpoint->facts().peer_addresses.empty());
}

} // namespace
} // namespace netprof
