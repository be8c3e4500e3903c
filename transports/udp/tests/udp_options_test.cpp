// The UDP transports' options beyond -u: the three modes as one family sharing the tuning
// options (udp_tuning_test.cpp tests those), -m and the --mc-* options, -b and its check against
// the host's interfaces, selection, and what the local pair passes on. Nothing here opens a
// socket.

#include "udp/broadcast_address.hpp"
#include "udp/interfaces.hpp"
#include "udp/multicast_options.hpp"
#include "udp/socket_address.hpp"
#include "udp/udp_tuning.hpp"

#include "udp_family.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <string>
#include <vector>

namespace {

using namespace netprof::udp_testing;
using netprof::LocalPairArguments;
using netprof::OptionValues;
using netprof::Role;
using netprof::testing::PlannedTransport;
namespace udp = netprof::udp;

OptionValues multicast_values(const Arguments& arguments)
{
  return parsed(arguments, {&udp::multicast_options()});
}

in_addr address(const char* text)
{
  in_addr result{};
  inet_pton(AF_INET, text, &result);
  return result;
}

// A local pair's `arguments` start with `flag ADDRESS:PORT`, the port one it picked (not 0).
::testing::AssertionResult start_at_a_picked_port(const Arguments& arguments,
                                                  const std::string& flag,
                                                  const std::string& address)
{
  const std::string prefix = address + ":";
  if (arguments.size() >= 2 && arguments[0] == flag && arguments[1].rfind(prefix, 0) == 0 &&
      arguments[1] != prefix + "0")
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << ::testing::PrintToString(arguments) << " do not start with " << flag << " " << prefix
         << "PORT, a port picked";
}

// Of `candidates`, the options `mode` reads, in their order.
Arguments options_read(const PlannedTransport& mode, const Arguments& candidates)
{
  Arguments read;
  for (const std::string& option : candidates)
    if (mode.reads_option(option))
      read.push_back(option);
  return read;
}

// With `given`, both processes of the multicast pair get `own` (the transport's own arguments)
// and `passed_on` (what the pair forwards as the user gave it).
::testing::AssertionResult multicast_pair_gets(const Family& family, const Arguments& given,
                                               const Arguments& own, const Arguments& passed_on)
{
  if (::testing::AssertionResult result = both_get(family.multicast->pair(), own); !result)
    return result << " (the transport's own arguments)";
  return both_get(family.forwarded(given), passed_on);
}

// --- the family: three registry entries, one set of shared options -------------------------

TEST(UdpFamily, AllOptionsTogetherParseWithoutAmbiguity)
{
  // What the command line does: every entry's group in one description.
  Family family;
  const Arguments given = {"-m", "239.1.2.3:5000", "--fragment-size", "9000", "--mc-ttl", "3"};
  EXPECT_NO_THROW(family.give(given));
  EXPECT_FALSE(family.unicast->selected());
  EXPECT_TRUE(family.multicast->selected());
  EXPECT_FALSE(family.broadcast->selected());
  // The option shown in the udp entry's group is what multicast sends with.
  EXPECT_EQ(udp::parse_tuning(parsed(given, family.groups())).fragment_size, 9000u);
  EXPECT_TRUE(multicast_pair_gets(family, given, {"-m", "239.1.2.3:5000"},
                                  {"--fragment-size", "9000", "--mc-ttl", "3"}));
}

TEST(UdpFamily, UnicastLocalPairPassesTheSharedOptionsOn)
{
  Family family({"--udp-batch", "8"});
  const LocalPairArguments pair = family.unicast->pair();
  ASSERT_EQ(pair.publisher.size(), 2u) << "its own address only";
  ASSERT_EQ(pair.subscriber.size(), 4u) << "its own address and the publisher's";
  EXPECT_TRUE(both_get(family.forwarded({"--udp-batch", "8"}), Arguments{"--udp-batch", "8"}));
}

TEST(UdpFamily, BadSharedOptionIsReportedByEveryMode)
{
  Family family({"-u", "127.0.0.1:40000", "--fragment-size", "100"});
  const std::string expected =
      "invalid value '100' for --fragment-size: expected a size in bytes from 512 to 65479"
      " (K, M, G = 1024, 1024^2, 1024^3 bytes)";
  EXPECT_EQ(usage_error([&] { family.unicast->plan_for(Role::publisher); }), expected);
  EXPECT_EQ(usage_error([&] { family.multicast->plan_for(Role::publisher); }), expected);
}

TEST(UdpFamily, EveryModeReadsTheSharedOptionsAndOnlyItsOwnAddressOptions)
{
  // What the command line asks before it refuses an option the chosen transport ignores: each
  // mode reads its own address options and the shared ones, and nothing else.
  const Arguments shared = {"udp-max-message",    "fragment-size", "reassembly-slots",
                            "reassembly-timeout", "udp-batch",     "udp-gso"};
  const auto and_shared = [&](Arguments own) {
    own.insert(own.end(), shared.begin(), shared.end());
    return own;
  };
  const Arguments candidates = and_shared(
      {"udp", "multicast", "mc-ttl", "mc-loopback", "mc-interface", "broadcast", "zmq-nodrop"});
  Family family;
  EXPECT_EQ(options_read(*family.unicast, candidates), and_shared({"udp"}));
  EXPECT_EQ(options_read(*family.multicast, candidates),
            and_shared({"multicast", "mc-ttl", "mc-loopback", "mc-interface"}));
  EXPECT_EQ(options_read(*family.broadcast, candidates), and_shared({"broadcast"}));
}

TEST(UdpFamily, OnlyMNamesMulticastThoughAnyMcOptionSelectsIt)
{
  // So -b with --mc-ttl is broadcast given an option it does not read, not two transports.
  Family family({"-b", "127.255.255.255:1", "--mc-ttl", "3"});
  EXPECT_TRUE(family.multicast->selected());
  EXPECT_FALSE(family.multicast->named());
  EXPECT_TRUE(family.broadcast->named());
  EXPECT_FALSE(family.unicast->named());

  family.give({"-m", "239.1.2.3:5000"});
  EXPECT_TRUE(family.multicast->named());
  EXPECT_FALSE(family.broadcast->named());
}

// --- multicast -----------------------------------------------------------------------------

TEST(MulticastOptions, WithoutMUsesMadarasGroupAndIsNotSelected)
{
  const OptionValues nothing = multicast_values({});
  EXPECT_FALSE(Family().multicast->selected());
  EXPECT_FALSE(udp::group_given(nothing));
  const udp::MulticastSettings settings = udp::parse_multicast(nothing);
  EXPECT_EQ(udp::to_string(settings.group.sin_addr), "239.255.0.1");
  EXPECT_EQ(ntohs(settings.group.sin_port), 4150);
  EXPECT_EQ(settings.ttl, 1);
  EXPECT_TRUE(settings.loopback);
  EXPECT_FALSE(settings.interface);
}

TEST(MulticastOptions, AnyMcOptionSelectsMulticast)
{
  for (const Arguments& arguments :
       {Arguments{"-m", "239.0.0.1:1"}, Arguments{"--mc-ttl", "2"},
        Arguments{"--mc-loopback", "off"}, Arguments{"--mc-interface", "lo"}}) {
    Family family;
    family.give(arguments);
    EXPECT_TRUE(family.multicast->selected()) << arguments[0];
  }
}

TEST(MulticastOptions, InterfaceByNameOrAddress)
{
  for (const char* value : {"lo", "127.0.0.1"}) {
    const udp::MulticastSettings settings = udp::parse_multicast(
        multicast_values({"--mc-interface", value, "--mc-ttl", "0", "--mc-loopback", "off"}));
    ASSERT_TRUE(settings.interface) << value;
    EXPECT_EQ(settings.interface->name, "lo");
    EXPECT_EQ(udp::to_string(settings.interface->address), "127.0.0.1");
    EXPECT_GT(settings.interface->index, 0u);
    EXPECT_EQ(settings.ttl, 0);
    EXPECT_FALSE(settings.loopback);
  }
}

struct BadMulticast {
  Arguments arguments;
  std::string message; // the start of it, when it lists the host's interfaces
};

class MulticastRejects : public ::testing::TestWithParam<BadMulticast> {};

TEST_P(MulticastRejects, WithOneClearLine)
{
  const OptionValues values = multicast_values(GetParam().arguments);
  const std::string message = usage_error([&] { udp::parse_multicast(values); });
  EXPECT_EQ(message.rfind(GetParam().message, 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Values, MulticastRejects,
    ::testing::Values(
        BadMulticast{{"-m", "10.1.2.3:4150"},
                     "bad -m value '10.1.2.3:4150': 10.1.2.3 is not a multicast group (224.0.0.0 "
                     "to 239.255.255.255)"},
        BadMulticast{{"-m", "240.0.0.1:4150"},
                     "bad -m value '240.0.0.1:4150': 240.0.0.1 is not a multicast group"},
        BadMulticast{{"-m", "239.255.0.1:0"},
                     "bad -m value '239.255.0.1:0': the group needs a port other than 0"},
        BadMulticast{{"-m", "239.255.0.1"}, "bad -m value '239.255.0.1': expected host:port"},
        BadMulticast{{"--mc-ttl", "256"},
                     "invalid value '256' for --mc-ttl: expected a whole number from 0 to 255"},
        BadMulticast{{"--mc-loopback", "yes"},
                     "invalid value 'yes' for --mc-loopback: expected on or off"},
        BadMulticast{{"--mc-interface", "no-such-interface0"},
                     "bad --mc-interface value 'no-such-interface0': no interface has this "
                     "address or name (these do: 127.0.0.1 (lo)"},
        BadMulticast{{"--mc-interface", "10.99.99.99"},
                     "bad --mc-interface value '10.99.99.99': no interface has this address or "
                     "name (these do: 127.0.0.1 (lo)"}));

TEST(MulticastLocalPair, WithoutMBothJoinMadarasGroupOnAFreePortOnLoopback)
{
  Family family;
  const LocalPairArguments pair = family.multicast->pair();
  ASSERT_EQ(pair.publisher.size(), 6u);
  EXPECT_TRUE(start_at_a_picked_port(pair.publisher, "-m", "239.255.0.1"));
  EXPECT_EQ(Arguments(pair.publisher.begin() + 2, pair.publisher.end()),
            (Arguments{"--mc-ttl", "0", "--mc-interface", "127.0.0.1"}))
      << "the pair's traffic stays on this host";
  EXPECT_EQ(pair.subscriber, pair.publisher) << "both processes share the group";
}

TEST(MulticastLocalPair, GivenGroupAndOptionsAreKept)
{
  const Arguments given = {"-m", "239.9.9.9:7000", "--mc-interface", "lo", "--mc-loopback", "off"};
  Family family(given);
  EXPECT_TRUE(multicast_pair_gets(family, given, {"-m", "239.9.9.9:7000"},
                                  {"--mc-interface", "lo", "--mc-loopback", "off"}));
}

TEST(MulticastLocalPair, WithoutMTheOptionsGivenReplaceTheLoopbackDefaults)
{
  Family family({"--mc-ttl", "1"});
  const LocalPairArguments pair = family.multicast->pair();
  ASSERT_EQ(pair.publisher.size(), 4u);
  EXPECT_EQ(Arguments(pair.publisher.begin() + 2, pair.publisher.end()),
            (Arguments{"--mc-interface", "127.0.0.1"}))
      << "the TTL given reaches the children as given, not replaced by 0";
}

// --- broadcast -----------------------------------------------------------------------------

TEST(BroadcastAddresses, FollowTheKernelsLocalRoutes)
{
  const std::vector<in_addr> lo =
      udp::broadcast_addresses(address("127.0.0.1"), address("255.0.0.0"), nullptr);
  ASSERT_EQ(lo.size(), 1u);
  EXPECT_EQ(udp::to_string(lo[0]), "127.255.255.255");

  const in_addr configured = address("10.0.0.200");
  const std::vector<in_addr> both =
      udp::broadcast_addresses(address("10.0.0.1"), address("255.255.255.0"), &configured);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(udp::to_string(both[0]), "10.0.0.200");
  EXPECT_EQ(udp::to_string(both[1]), "10.0.0.255");

  EXPECT_TRUE(
      udp::broadcast_addresses(address("10.0.0.1"), address("255.255.255.254"), nullptr).empty())
      << "a /31 has no broadcast address";
}

TEST(BroadcastAddress, LoopbacksAndTheLimitedBroadcastAreAccepted)
{
  EXPECT_EQ(udp::to_string(udp::parse_broadcast_address("127.255.255.255:4150")),
            "127.255.255.255:4150");
  EXPECT_EQ(udp::to_string(udp::parse_broadcast_address("255.255.255.255:4150")),
            "255.255.255.255:4150");
}

TEST(BroadcastAddress, AnAddressNoInterfaceHasIsRefusedListingThoseThatExist)
{
  const std::string message =
      usage_error([] { udp::parse_broadcast_address("10.123.255.255:4150"); });
  EXPECT_EQ(message.rfind("bad -b value '10.123.255.255:4150': no interface has the broadcast "
                          "address 10.123.255.255 (these do: ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("127.255.255.255 (lo)"), std::string::npos) << message;
  EXPECT_NE(message.find("and 255.255.255.255)"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(BroadcastAddress, PortZeroIsRefused)
{
  EXPECT_EQ(usage_error([] { udp::parse_broadcast_address("127.255.255.255:0"); }),
            "bad -b value '127.255.255.255:0': a port other than 0 is needed (every process "
            "binds the same one)");
}

TEST(BroadcastTransport, NeedsAnAddressAndIsSelectedByB)
{
  Family family;
  EXPECT_EQ(usage_error([&] { family.broadcast->plan_for(Role::subscriber); }),
            "broadcast needs its address: -b addr:port, e.g. -b 127.255.255.255:4150");
  family.give({"-b", "127.255.255.255:1"});
  EXPECT_TRUE(family.broadcast->selected());
}

TEST(BroadcastLocalPair, WithoutBBothUseLoopbacksBroadcastOnAFreePort)
{
  Family family;
  const LocalPairArguments pair = family.broadcast->pair();
  ASSERT_EQ(pair.publisher.size(), 2u);
  EXPECT_TRUE(start_at_a_picked_port(pair.publisher, "-b", "127.255.255.255"));
  EXPECT_EQ(pair.subscriber, pair.publisher);
}

// --- broadcast on a named interface (what the multi-host launcher gives) -----------------

TEST(BroadcastInterface, GivesThatInterfacesBroadcastAddressAndTheBarePort)
{
  EXPECT_EQ(udp::to_string(udp::interface_broadcast_address("4150", "lo")), "127.255.255.255:4150");
  EXPECT_EQ(udp::to_string(udp::interface_broadcast_address("4150", "127.0.0.1")),
            "127.255.255.255:4150")
      << "by address as by name";
  EXPECT_EQ(udp::to_string(udp::interface_broadcast_address("127.255.255.255:4150", "lo")),
            "127.255.255.255:4150")
      << "an address:port that is the interface's own";
}

TEST(BroadcastInterface, RefusesAnotherInterfacesAddressABadPortAndAnUnknownInterface)
{
  EXPECT_EQ(usage_error([] { udp::interface_broadcast_address("255.255.255.255:4150", "lo"); }),
            "bad -b value '255.255.255.255:4150': 255.255.255.255 is not the broadcast address of "
            "--bc-interface lo: lo (127.0.0.1), which is 127.255.255.255");
  EXPECT_EQ(usage_error([] { udp::interface_broadcast_address("0", "lo"); }),
            "bad -b value '0': a port from 1 to 65535");
  EXPECT_EQ(usage_error([] { udp::interface_broadcast_address("65536", "lo"); }),
            "bad -b value '65536': a port from 1 to 65535");
  EXPECT_EQ(usage_error([] { udp::interface_broadcast_address("4150", "no-such-interface0"); })
                .rfind("bad --bc-interface value 'no-such-interface0': no interface has this "
                       "address or name (these do: ",
                       0),
            0u);
}

TEST(BroadcastInterface, TheLocalPairGetsTheAddressItFound)
{
  Family family({"-b", "4150", "--bc-interface", "lo"});
  const LocalPairArguments pair = family.broadcast->pair();
  EXPECT_EQ(pair.publisher, (Arguments{"-b", "127.255.255.255:4150"}));
  EXPECT_EQ(pair.subscriber, pair.publisher);
  Family without_b({"--bc-interface", "lo"});
  EXPECT_EQ(usage_error([&] { without_b.broadcast->plan_for(Role::subscriber); }),
            "broadcast needs its address: -b addr:port, e.g. -b 127.255.255.255:4150, or its "
            "port with --bc-interface: -b 4150");
}

} // namespace
