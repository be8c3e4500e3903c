// tcp's command line: which addresses each role takes, what the local pair derives, and what
// the endpoint says about its sockets.

#include "tcp/tcp_transport.hpp"

#include "common/free_ports.hpp"

#include <netprof/errors.hpp>

#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

using netprof::Role;
using netprof::TransportDescriptor;
using netprof::TransportError;
using netprof::UsageError;
using netprof::testing::PlannedTransport;

std::unique_ptr<PlannedTransport> tcp_with(const std::vector<std::string>& arguments)
{
  return netprof::testing::planned(netprof::tcp_transport(), arguments);
}

// The UsageError's message when `role` validates these arguments, or "" when none is thrown.
std::string refusal(const std::vector<std::string>& arguments, Role role)
{
  try {
    tcp_with(arguments)->plan_for(role);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

std::uint16_t free_port()
{
  return netprof::transport_common::pick_free_ports(SOCK_STREAM, in_addr{htonl(INADDR_LOOPBACK)}, 1)
      .front();
}

TEST(TcpOptions, APublisherListensAtOneAddressWithARealPort)
{
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:5555"}, Role::publisher), "");
  EXPECT_NE(refusal({"--tcp-nodelay", "off"}, Role::publisher).find("needs the address it listens"),
            std::string::npos);
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:0"}, Role::publisher),
            "bad --tcp value '127.0.0.1:0': a publisher needs a port other than 0, since its "
            "subscribers connect to it (only --local-pair picks one itself)");
  EXPECT_NE(refusal({"--tcp", "127.0.0.1:5555", "--tcp", "127.0.0.1:5556"}, Role::publisher)
                .find("takes one --tcp"),
            std::string::npos);
}

TEST(TcpOptions, ASubscriberTakesItsPublishersAddressOrItsOwnThenThePublishers)
{
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:5555"}, Role::subscriber), "");
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:0", "--tcp", "127.0.0.1:5555"}, Role::subscriber), "");
  EXPECT_NE(refusal({"--tcp", "127.0.0.1:5555", "--tcp", "127.0.0.1:0"}, Role::subscriber)
                .find("the publisher's address needs its port"),
            std::string::npos);
  EXPECT_NE(refusal({"--tcp", "a:1", "--tcp", "b:2", "--tcp", "c:3"}, Role::subscriber)
                .find("needs its publisher's address"),
            std::string::npos);
}

TEST(TcpOptions, BadValuesAreRefusedInOneLineNamingThem)
{
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1"}, Role::subscriber),
            "bad --tcp value '127.0.0.1': expected host:port");
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:65536"}, Role::subscriber),
            "bad --tcp value '127.0.0.1:65536': the port 65536 is not in 0..65535");
  EXPECT_EQ(refusal({"--tcp", "127.0.0.1:1", "--tcp-nodelay", "maybe"}, Role::subscriber),
            "invalid value 'maybe' for --tcp-nodelay: expected on or off");
}

TEST(TcpOptions, TheLocalPairPicksAFreePortUnlessGivenOne)
{
  const netprof::LocalPairPlan picked = tcp_with({})->pair_plan(2);
  ASSERT_EQ(picked.publisher.size(), 2u);
  EXPECT_NE(picked.publisher[1], "127.0.0.1:0");
  ASSERT_EQ(picked.subscribers.size(), 2u);
  EXPECT_EQ(picked.subscribers[0], picked.publisher);
  tcp_with(picked.publisher)->plan_for(Role::publisher);
  tcp_with(picked.subscribers[1])->plan_for(Role::subscriber);

  const netprof::LocalPairPlan any = tcp_with({"--tcp", "0.0.0.0:0"})->pair_plan(1);
  EXPECT_EQ(any.publisher[1].rfind("0.0.0.0:", 0), 0u);
  EXPECT_EQ(any.subscribers[0][1].rfind("127.0.0.1:", 0), 0u) << "subscribers connect to lo";

  const netprof::LocalPairPlan both =
      tcp_with({"--tcp", "127.0.0.1:5555", "--tcp", "127.0.0.1:0"})->pair_plan(1);
  EXPECT_EQ(both.subscribers[0],
            (std::vector<std::string>{"--tcp", "127.0.0.1:0", "--tcp", "127.0.0.1:5555"}));
  EXPECT_THROW(tcp_with({"--tcp", "a:1", "--tcp", "b:2", "--tcp", "c:3"})->pair_plan(1),
               UsageError);
}

TEST(TcpOptions, TheReportGivesNaglesStateAndTheGrantedBuffers)
{
  const std::string address = "127.0.0.1:" + std::to_string(free_port());
  netprof::EndpointRequest request;
  request.queue_length_bytes = 300000;
  const auto publisher = tcp_with({"--tcp", address, "--tcp-nodelay", "off"})->open(request);
  const netprof::EndpointFacts facts = publisher->facts();
  EXPECT_EQ(facts.granted_send_buffer_bytes, 300000u);
  EXPECT_EQ(facts.granted_receive_buffer_bytes, 300000u);
  EXPECT_EQ(facts.max_message_size, 300000u) << "what one write into an empty socket takes";
  ASSERT_FALSE(facts.notes.empty());
  EXPECT_EQ(facts.notes.front().rfind("TCP_NODELAY off", 0), 0u) << facts.notes.front();
  EXPECT_EQ(facts.local_addresses, std::vector<std::string>{address});
}

TEST(TcpOptions, AnAddressInUseIsATransportErrorNamingIt)
{
  const int taken = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(taken, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(getsockname(taken, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ASSERT_EQ(listen(taken, 1), 0);
  const std::string text = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  try {
    tcp_with({"--tcp", text})->open({});
    ADD_FAILURE() << "opened on an address in use";
  } catch (const TransportError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot bind TCP " + text + ": Address already in use");
  }
  close(taken);
}

} // namespace
