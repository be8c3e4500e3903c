// The large-message and batching options every UDP mode shares (udp_tuning.hpp): defaults,
// parsing, refusals, and what the local pair passes on. Nothing here opens a socket.

#include "udp/udp_tuning.hpp"

#include "udp_family.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace std::chrono_literals;
using namespace netprof::udp_testing;
using netprof::LocalPairArguments;
namespace udp = netprof::udp;

udp::UdpTuning tuning_of(const Arguments& arguments)
{
  return udp::parse_tuning(parsed(arguments, {&udp::tuning_options()}));
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

} // namespace
