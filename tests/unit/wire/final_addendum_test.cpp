#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using netprof::wire::decode_final_addendum;
using netprof::wire::encode_final_addendum;
using netprof::wire::final_addendum_size;
using netprof::wire::FinalAddendum;
using netprof::wire::ProcessUsage;

using Bytes = std::vector<std::byte>;

Bytes encoded(const FinalAddendum& addendum)
{
  Bytes out(final_addendum_size);
  encode_final_addendum(addendum, out);
  return out;
}

TEST(FinalAddendumWire, RoundTrips)
{
  const FinalAddendum sut{{1'500'000'000, 250'000'000, 9'437'184}, 77, 123'456'789};
  FinalAddendum decoded;

  ASSERT_TRUE(decode_final_addendum(encoded(sut), decoded));

  EXPECT_EQ(decoded.usage.user_cpu_ns, sut.usage.user_cpu_ns);
  EXPECT_EQ(decoded.usage.system_cpu_ns, sut.usage.system_cpu_ns);
  EXPECT_EQ(decoded.usage.peak_rss_bytes, sut.usage.peak_rss_bytes);
  EXPECT_EQ(decoded.injected_drops, 77u);
  EXPECT_EQ(decoded.join_ns, 123'456'789u);
}

TEST(FinalAddendumWire, AnAddendumWithoutTheJoinTimeFromAnOlderSubscriberLeavesItUnknown)
{
  const Bytes sut = encoded({{1, 2, 3}, 4, 5});
  FinalAddendum decoded;

  ASSERT_TRUE(
      decode_final_addendum(std::span(sut).first(netprof::wire::final_addendum_v1_size), decoded));
  EXPECT_EQ(decoded.injected_drops, 4u);
  EXPECT_EQ(decoded.join_ns, 0u);
}

TEST(FinalAddendumWire, RefusesAnyOtherSize)
{
  Bytes sut = encoded({{1, 2, 3}, 4});
  sut.push_back(std::byte{0});
  FinalAddendum decoded;

  EXPECT_FALSE(decode_final_addendum(sut, decoded));
  EXPECT_FALSE(decode_final_addendum(std::span(sut).first(final_addendum_size - 1), decoded));
  EXPECT_FALSE(decode_final_addendum(
      std::span(sut).first(netprof::wire::final_addendum_v1_size - 1), decoded));
}

// A forged figure must not reach the report as if a process had spent it.
TEST(FinalAddendumWire, RefusesWhatNoProcessSpendsAndLeavesTheOutputAlone)
{
  const FinalAddendum before{{7, 8, 9}, 10};
  for (const ProcessUsage& forged :
       {ProcessUsage{~0ULL, 0, 0}, ProcessUsage{0, ~0ULL, 0}, ProcessUsage{0, 0, 1ULL << 50}}) {
    FinalAddendum decoded = before;
    EXPECT_FALSE(decode_final_addendum(encoded({forged, 0}), decoded));
    EXPECT_EQ(decoded.usage.user_cpu_ns, before.usage.user_cpu_ns);
    EXPECT_EQ(decoded.injected_drops, before.injected_drops);
  }
  FinalAddendum decoded = before;
  EXPECT_FALSE(decode_final_addendum(encoded({{1, 2, 3}, 0, ~0ULL}), decoded))
      << "a join time of centuries";
}

} // namespace
