// The run a publisher's acknowledgement describes survives the wire, and a payload that could
// not come from a publisher is refused whole.

#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace netprof::wire;

RunDescription typical()
{
  RunDescription d;
  d.payload_size = 4096;
  d.num_vars = 8;
  d.ping_pong = 1;
  d.test_ns = 1'000'000'000;
  d.send_hz = 1000.5;
  d.warmup_count = 21;
  d.probe_hz = 200;
  d.subscribers = 3;
  d.count_received = 10'000;
  return d;
}

std::vector<std::byte> encoded(const RunDescription& d)
{
  std::vector<std::byte> bytes(run_description_size);
  encode_run_description(d, bytes);
  return bytes;
}

TEST(RunDescriptionWire, RoundTripsEveryField)
{
  RunDescription decoded;
  ASSERT_TRUE(decode_run_description(encoded(typical()), decoded));
  const RunDescription sent = typical();
  EXPECT_EQ(decoded.payload_size, sent.payload_size);
  EXPECT_EQ(decoded.num_vars, sent.num_vars);
  EXPECT_EQ(decoded.ping_pong, sent.ping_pong);
  EXPECT_EQ(decoded.test_ns, sent.test_ns);
  EXPECT_EQ(decoded.count, sent.count);
  EXPECT_EQ(decoded.send_hz, sent.send_hz);
  EXPECT_EQ(decoded.warmup_ns, sent.warmup_ns);
  EXPECT_EQ(decoded.warmup_count, sent.warmup_count);
  EXPECT_EQ(decoded.probe_hz, sent.probe_hz);
  EXPECT_EQ(decoded.subscribers, sent.subscribers);
  EXPECT_EQ(decoded.count_received, sent.count_received);
}

TEST(RunDescriptionWire, ADescriptionWithoutTheCountReceivedIsAnOlderPublishersAndAsksNone)
{
  const std::vector<std::byte> bytes = encoded(typical());
  RunDescription decoded;
  ASSERT_TRUE(decode_run_description(std::span(bytes).first(run_description_v1_size), decoded));
  EXPECT_EQ(decoded.count_received, 0u);
  EXPECT_EQ(decoded.subscribers, typical().subscribers);
}

TEST(RunDescriptionWire, RoundRobinTravelsBesideEitherMode)
{
  for (const std::uint64_t ping_pong : {0u, 1u}) {
    RunDescription sent = typical();
    sent.ping_pong = ping_pong;
    sent.round_robin = true;
    RunDescription decoded;
    ASSERT_TRUE(decode_run_description(encoded(sent), decoded));
    EXPECT_TRUE(decoded.round_robin);
    EXPECT_EQ(decoded.ping_pong, ping_pong);
  }
  RunDescription decoded;
  ASSERT_TRUE(decode_run_description(encoded(typical()), decoded));
  EXPECT_FALSE(decoded.round_robin); // what a publisher that predates it sends
}

TEST(RunDescriptionWire, RefusesAnyOtherSizeAndImpossibleValuesLeavingTheOutputAlone)
{
  RunDescription untouched;
  untouched.payload_size = 77;
  std::vector<std::byte> bytes = encoded(typical());
  RunDescription out = untouched;
  EXPECT_FALSE(decode_run_description(std::span(bytes).first(run_description_size - 1), out));
  EXPECT_FALSE(decode_run_description(std::span(bytes).first(run_description_v1_size - 1), out));
  bytes.push_back(std::byte{0});
  EXPECT_FALSE(decode_run_description(bytes, out));
  EXPECT_FALSE(decode_run_description({}, out)); // a publisher that predates it
  for (const double rate : {std::nan(""), -1.0, std::numeric_limits<double>::infinity()}) {
    RunDescription bad = typical();
    bad.send_hz = rate;
    EXPECT_FALSE(decode_run_description(encoded(bad), out)) << rate;
    bad = typical();
    bad.probe_hz = rate;
    EXPECT_FALSE(decode_run_description(encoded(bad), out)) << rate;
  }
  RunDescription bad = typical();
  bad.ping_pong = 4; // the mode field has two bits: ping-pong and round-robin
  EXPECT_FALSE(decode_run_description(encoded(bad), out));
  EXPECT_EQ(out.payload_size, untouched.payload_size);
}

} // namespace
