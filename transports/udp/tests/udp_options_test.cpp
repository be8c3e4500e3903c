// The UDP transports' options beyond -u: large-message and batching options shared by every
// mode, -m and the --mc-* options, -b and its check against the host's interfaces, selection,
// and what the local pair passes on. Nothing here opens a socket.

#include "udp/broadcast_address.hpp"
#include "udp/interfaces.hpp"
#include "udp/multicast_options.hpp"
#include "udp/socket_address.hpp"
#include "udp/udp_transport.hpp"
#include "udp/udp_tuning.hpp"

#include "support/transport_options.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using netprof::LocalPairArguments;
using netprof::OptionGroup;
using netprof::OptionValues;
using netprof::Role;
using netprof::TransportDescriptor;
using netprof::UsageError;
using netprof::testing::PlannedTransport;
namespace udp = netprof::udp;

using Arguments = std::vector<std::string>;

OptionValues parsed(const Arguments& arguments, const std::vector<const OptionGroup*>& groups)
{
  return netprof::parse_options(arguments, groups);
}

udp::UdpTuning tuning_of(const Arguments& arguments)
{
  return udp::parse_tuning(parsed(arguments, {&udp::tuning_options()}));
}

OptionValues multicast_values(const Arguments& arguments)
{
  return parsed(arguments, {&udp::multicast_options()});
}

template <typename Action> std::string usage_error(Action&& action)
{
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(no error)";
}

in_addr address(const char* text)
{
  in_addr result{};
  inet_pton(AF_INET, text, &result);
  return result;
}

// The three UDP transports as one registry makes them; the command line gives each what the
// user gave, parsed against every group.
struct Family {
  std::vector<TransportDescriptor> all = {netprof::udp_transport(), netprof::multicast_transport(),
                                          netprof::broadcast_transport()};
  std::unique_ptr<PlannedTransport> unicast, multicast, broadcast;

  Family() { give({}); }

  std::vector<const OptionGroup*> groups() const
  {
    return {&all[0].options, &all[1].options, &all[2].options};
  }

  void give(const Arguments& arguments)
  {
    const OptionValues values = parsed(arguments, groups());
    unicast = std::make_unique<PlannedTransport>(all[0], values, all);
    multicast = std::make_unique<PlannedTransport>(all[1], values, all);
    broadcast = std::make_unique<PlannedTransport>(all[2], values, all);
  }

  // What the local pair passes on as the user gave it, beside the transport's own arguments.
  LocalPairArguments forwarded(const Arguments& arguments) const
  {
    return netprof::route_to_local_pair(parsed(arguments, groups()), groups());
  }
};

// --- options every UDP mode shares --------------------------------------------------------

// Both processes of a local pair get `expected`.
::testing::AssertionResult both_get(const LocalPairArguments& pair, const Arguments& expected)
{
  if (pair.publisher == expected && pair.subscriber == expected)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "publisher " << ::testing::PrintToString(pair.publisher) << ", subscriber "
         << ::testing::PrintToString(pair.subscriber) << ", expected both "
         << ::testing::PrintToString(expected);
}

TEST(UdpTuning, DefaultsAreMadarasFragmentSizeFourSlotsOneSecondNoBatching)
{
  const udp::UdpTuning tuning = tuning_of({});
  EXPECT_FALSE(tuning.max_message);
  EXPECT_EQ(tuning.fragment_size, 62000u);
  EXPECT_EQ(tuning.reassembly_slots, 4u);
  EXPECT_EQ(tuning.reassembly_timeout, 1s);
  EXPECT_EQ(tuning.batch, 1u);
  EXPECT_TRUE(tuning.gso);
}

TEST(UdpTuning, GivenValuesAreParsedAndPassedOnToTheLocalPair)
{
  const Arguments given = {
      "--udp-max-message",    "2000000", "--fragment-size", "8000", "--reassembly-slots", "2",
      "--reassembly-timeout", "0.25",    "--udp-batch",     "32",   "--udp-gso",          "off"};
  const udp::UdpTuning tuning = tuning_of(given);
  EXPECT_EQ(tuning.max_message, 2000000u);
  EXPECT_EQ(tuning.fragment_size, 8000u);
  EXPECT_EQ(tuning.reassembly_slots, 2u);
  EXPECT_EQ(tuning.reassembly_timeout, 250ms);
  EXPECT_EQ(tuning.batch, 32u);
  EXPECT_FALSE(tuning.gso);
  const LocalPairArguments pair = Family().forwarded(given);
  EXPECT_EQ(pair.publisher, given) << "both processes send and reassemble the same way";
  EXPECT_EQ(pair.subscriber, given);
}

struct BadTuning {
  Arguments arguments;
  std::string message;
};

class UdpTuningRejects : public ::testing::TestWithParam<BadTuning> {};

TEST_P(UdpTuningRejects, WithOneLineNamingTheOption)
{
  EXPECT_EQ(usage_error([&] { tuning_of(GetParam().arguments); }), GetParam().message);
}

// The one line a bad value of `option` gets: "invalid value 'VALUE' for OPTION: expected ...".
BadTuning bad(const std::string& option, const std::string& value, const std::string& expected)
{
  return {{option, value},
          "invalid value '" + value + "' for " + option + ": expected " + expected};
}

const std::string fragment_sizes =
    "a size in bytes from 512 to 65479 (K, M, G = 1024, 1024^2, 1024^3 bytes)";
const std::string message_sizes =
    "a size in bytes from 1 to 1073741824 (K, M, G = 1024, 1024^2, 1024^3 bytes)";
const std::string timeouts = "seconds > 0, at most 3600";
const std::string batches = "a whole number from 1 to 1024";

INSTANTIATE_TEST_SUITE_P(
    Values, UdpTuningRejects,
    ::testing::Values(bad("--fragment-size", "511", fragment_sizes),
                      bad("--fragment-size", "65480", fragment_sizes),
                      bad("--fragment-size", "-1", fragment_sizes),
                      bad("--fragment-size", "64k", fragment_sizes),
                      bad("--udp-max-message", "0", message_sizes),
                      bad("--udp-max-message", "99999999999999999999999", message_sizes),
                      bad("--reassembly-slots", "0", "a whole number from 1 to 64"),
                      bad("--reassembly-timeout", "0", timeouts),
                      bad("--reassembly-timeout", "nan", timeouts),
                      bad("--udp-batch", "1025", batches), bad("--udp-batch", "", batches)));

TEST(UdpTuning, LargestMessageFollowsTheReceiveBufferUnlessGiven)
{
  udp::UdpTuning tuning;
  EXPECT_EQ(udp::largest_message(tuning, 1'000'000), 1'000'000u);
  EXPECT_EQ(udp::largest_message(tuning, 1000), 65507u) << "one whole datagram at least";
  EXPECT_EQ(udp::largest_message(tuning, 1u << 30), udp::default_max_message_cap);
  EXPECT_EQ(udp::default_max_message_cap, 16u * 1024 * 1024 + 64 * 1024);
  EXPECT_EQ(udp::largest_reassembled_message(tuning), udp::default_max_message_cap);
  tuning.max_message = 5000;
  EXPECT_EQ(udp::largest_message(tuning, 1u << 30), 5000u);
  EXPECT_EQ(udp::largest_reassembled_message(tuning), 5000u);
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
  EXPECT_TRUE(both_get(family.multicast->pair(), Arguments{"-m", "239.1.2.3:5000"}));
  EXPECT_TRUE(
      both_get(family.forwarded(given), Arguments{"--fragment-size", "9000", "--mc-ttl", "3"}));
}

TEST(UdpFamily, UnicastLocalPairPassesTheSharedOptionsOn)
{
  Family family;
  family.give({"--udp-batch", "8"});
  const LocalPairArguments pair = family.unicast->pair();
  ASSERT_EQ(pair.publisher.size(), 2u) << "its own address only";
  ASSERT_EQ(pair.subscriber.size(), 4u) << "its own address and the publisher's";
  EXPECT_TRUE(both_get(family.forwarded({"--udp-batch", "8"}), Arguments{"--udp-batch", "8"}));
}

TEST(UdpFamily, BadSharedOptionIsReportedByEveryMode)
{
  Family family;
  family.give({"-u", "127.0.0.1:40000", "--fragment-size", "100"});
  const std::string expected =
      "invalid value '100' for --fragment-size: expected a size in bytes from 512 to 65479"
      " (K, M, G = 1024, 1024^2, 1024^3 bytes)";
  EXPECT_EQ(usage_error([&] { family.unicast->plan_for(Role::publisher); }), expected);
  EXPECT_EQ(usage_error([&] { family.multicast->plan_for(Role::publisher); }), expected);
}

TEST(UdpFamily, EveryModeReadsTheSharedOptionsAndOnlyItsOwnAddressOptions)
{
  // What the command line asks before it refuses an option the chosen transport ignores.
  Family family;
  for (const char* shared : {"udp-max-message", "fragment-size", "reassembly-slots",
                             "reassembly-timeout", "udp-batch", "udp-gso"}) {
    EXPECT_TRUE(family.unicast->reads_option(shared)) << shared;
    EXPECT_TRUE(family.multicast->reads_option(shared)) << shared;
    EXPECT_TRUE(family.broadcast->reads_option(shared)) << shared;
  }
  EXPECT_TRUE(family.unicast->reads_option("udp"));
  EXPECT_FALSE(family.unicast->reads_option("multicast"));
  EXPECT_FALSE(family.unicast->reads_option("mc-ttl"));
  EXPECT_FALSE(family.unicast->reads_option("broadcast"));
  for (const char* own : {"multicast", "mc-ttl", "mc-loopback", "mc-interface"}) {
    EXPECT_TRUE(family.multicast->reads_option(own)) << own;
    EXPECT_FALSE(family.broadcast->reads_option(own)) << own;
  }
  EXPECT_FALSE(family.multicast->reads_option("udp"));
  EXPECT_FALSE(family.multicast->reads_option("broadcast"));
  EXPECT_TRUE(family.broadcast->reads_option("broadcast"));
  EXPECT_FALSE(family.broadcast->reads_option("udp"));
  EXPECT_FALSE(family.broadcast->reads_option("zmq-nodrop"));
}

TEST(UdpFamily, OnlyMNamesMulticastThoughAnyMcOptionSelectsIt)
{
  // So -b with --mc-ttl is broadcast given an option it does not read, not two transports.
  Family family;
  family.give({"-b", "127.255.255.255:1", "--mc-ttl", "3"});
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
  EXPECT_EQ(pair.publisher[0], "-m");
  EXPECT_EQ(pair.publisher[1].rfind("239.255.0.1:", 0), 0u);
  EXPECT_NE(pair.publisher[1], "239.255.0.1:0");
  EXPECT_EQ(Arguments(pair.publisher.begin() + 2, pair.publisher.end()),
            (Arguments{"--mc-ttl", "0", "--mc-interface", "127.0.0.1"}))
      << "the pair's traffic stays on this host";
  EXPECT_EQ(pair.subscriber, pair.publisher) << "both processes share the group";
}

TEST(MulticastLocalPair, GivenGroupAndOptionsAreKept)
{
  Family family;
  const Arguments given = {"-m", "239.9.9.9:7000", "--mc-interface", "lo", "--mc-loopback", "off"};
  family.give(given);
  EXPECT_TRUE(both_get(family.multicast->pair(), Arguments{"-m", "239.9.9.9:7000"}));
  EXPECT_TRUE(
      both_get(family.forwarded(given), Arguments{"--mc-interface", "lo", "--mc-loopback", "off"}));
}

TEST(MulticastLocalPair, WithoutMTheOptionsGivenReplaceTheLoopbackDefaults)
{
  Family family;
  family.give({"--mc-ttl", "1"});
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
  EXPECT_EQ(pair.publisher[0], "-b");
  EXPECT_EQ(pair.publisher[1].rfind("127.255.255.255:", 0), 0u);
  EXPECT_NE(pair.publisher[1], "127.255.255.255:0");
  EXPECT_EQ(pair.subscriber, pair.publisher);
}

} // namespace
