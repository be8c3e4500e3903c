#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

namespace {

using netprof::wire::decode_counters;
using netprof::wire::encode_counters;
using netprof::wire::final_counters_size;
using netprof::wire::SubscriberCounters;

using Bytes = std::vector<std::byte>;

auto fields(const SubscriberCounters& c)
{
  return std::make_tuple(c.received, c.unique, c.duplicates, c.out_of_order, c.gaps, c.datagrams,
                         c.payload_bytes, c.wire_bytes, c.first_to_last_ns, c.probes_echoed,
                         c.rejected, c.warmup_received, c.records_decoded);
}

// Field i holds i + 1, so the encoded order can be read straight off the bytes.
SubscriberCounters numbered_counters()
{
  SubscriberCounters c;
  c.received = 1;
  c.unique = 2;
  c.duplicates = 3;
  c.out_of_order = 4;
  c.gaps = 5;
  c.datagrams = 6;
  c.payload_bytes = 7;
  c.wire_bytes = 8;
  c.first_to_last_ns = 9;
  c.probes_echoed = 10;
  c.rejected = 11;
  c.warmup_received = 12;
  c.records_decoded = 13;
  return c;
}

Bytes encoded(const SubscriberCounters& counters)
{
  Bytes out(final_counters_size);
  encode_counters(counters, out);
  return out;
}

TEST(CountersRoundTrip, DecodesWhatWasEncoded)
{
  SubscriberCounters sut = numbered_counters();
  sut.received = std::numeric_limits<std::uint64_t>::max();
  sut.records_decoded = 0x8000000000000001;
  SubscriberCounters decoded;

  ASSERT_TRUE(decode_counters(encoded(sut), decoded));

  EXPECT_EQ(fields(decoded), fields(sut));
}

TEST(CountersLayout, EncodesFieldsLittleEndianInDeclarationOrder)
{
  const SubscriberCounters sut = numbered_counters();

  const Bytes bytes = encoded(sut);

  for (std::size_t i = 0; i < 13; ++i) {
    SCOPED_TRACE("field " + std::to_string(i));
    EXPECT_EQ(bytes[8 * i], static_cast<std::byte>(i + 1));
    for (std::size_t b = 1; b < 8; ++b) {
      EXPECT_EQ(bytes[8 * i + b], std::byte{0});
    }
  }
}

TEST(CountersDecode, RejectsPayloadOneByteShort)
{
  const Bytes whole = encoded(numbered_counters());
  const Bytes sut(whole.begin(), whole.end() - 1);
  SubscriberCounters decoded;

  EXPECT_FALSE(decode_counters(sut, decoded));
}

TEST(CountersDecode, RejectsPayloadOneByteLong)
{
  Bytes sut = encoded(numbered_counters());
  sut.push_back(std::byte{0});
  SubscriberCounters decoded;

  EXPECT_FALSE(decode_counters(sut, decoded));
}

TEST(CountersDecode, RejectsEmptyPayload)
{
  const Bytes sut;
  SubscriberCounters decoded;

  EXPECT_FALSE(decode_counters(sut, decoded));
}

TEST(CountersDecode, LeavesOutputUntouchedOnRejection)
{
  const Bytes sut(final_counters_size - 8, std::byte{0xFF});
  const SubscriberCounters before = numbered_counters();
  SubscriberCounters decoded = before;

  ASSERT_FALSE(decode_counters(sut, decoded));

  EXPECT_EQ(fields(decoded), fields(before));
}

} // namespace
