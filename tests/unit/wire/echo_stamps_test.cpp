#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

using netprof::wire::decode_echo_stamps;
using netprof::wire::echo_stamps_size;
using netprof::wire::EchoStamps;
using netprof::wire::encode_echo_stamps;

using Bytes = std::vector<std::byte>;

Bytes encoded_stamps(const EchoStamps& stamps)
{
  Bytes out(echo_stamps_size);
  encode_echo_stamps(stamps, out);
  return out;
}

TEST(EchoStampsWire, RoundTrips)
{
  const EchoStamps sut{1'234'567'890'123, 1'234'567'891'000};
  EchoStamps decoded;

  ASSERT_TRUE(decode_echo_stamps(encoded_stamps(sut), decoded));

  EXPECT_EQ(decoded.arrived_ns, sut.arrived_ns);
  EXPECT_EQ(decoded.echoed_ns, sut.echoed_ns);
}

TEST(EchoStampsWire, IsLittleEndianAtFixedOffsets)
{
  const Bytes sut = encoded_stamps({0x0102030405060708, 0x1112131415161718});

  EXPECT_EQ(sut[0], std::byte{0x08});
  EXPECT_EQ(sut[7], std::byte{0x01});
  EXPECT_EQ(sut[8], std::byte{0x18});
  EXPECT_EQ(sut[15], std::byte{0x11});
}

TEST(EchoStampsWire, RefusesAnyOtherSize)
{
  const Bytes whole = encoded_stamps({10, 20});
  EchoStamps decoded{7, 8};
  for (std::size_t size = 0; size < 2 * echo_stamps_size; ++size) {
    if (size == echo_stamps_size)
      continue;
    Bytes sut(size, std::byte{0});
    std::copy_n(whole.begin(), std::min(size, whole.size()), sut.begin());
    EXPECT_FALSE(decode_echo_stamps(sut, decoded)) << size << " bytes";
  }
  EXPECT_EQ(decoded.arrived_ns, 7) << "a refused payload leaves the output alone";
}

TEST(EchoStampsWire, RefusesNegativeStamps)
{
  EchoStamps decoded;
  EXPECT_FALSE(decode_echo_stamps(encoded_stamps({-1, 5}), decoded));
  EXPECT_FALSE(
      decode_echo_stamps(encoded_stamps({std::numeric_limits<std::int64_t>::min(), 0}), decoded));
  EXPECT_FALSE(decode_echo_stamps(encoded_stamps({5, -1}), decoded));
}

TEST(EchoStampsWire, RefusesAnEchoSentBeforeItsProbeArrived)
{
  EchoStamps decoded;
  EXPECT_FALSE(decode_echo_stamps(encoded_stamps({1000, 999}), decoded));
  EXPECT_TRUE(decode_echo_stamps(encoded_stamps({1000, 1000}), decoded));
}

TEST(EchoStampsWire, TakesAnyPossibleStamp)
{
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  EchoStamps decoded;
  EXPECT_TRUE(decode_echo_stamps(encoded_stamps({0, most}), decoded));
  EXPECT_TRUE(decode_echo_stamps(encoded_stamps({most, most}), decoded));
  EXPECT_EQ(decoded.echoed_ns, most);
}

TEST(EchoStampsWire, RefusesEveryHostilePatternWithoutReadingPastTheEnd)
{
  // Every size up to twice the payload, every byte value: decoding must never read beyond the
  // span (ASan would say) and must accept only a well-formed pair.
  for (std::size_t size = 0; size <= 2 * echo_stamps_size; ++size)
    for (int value = 0; value < 256; value += 17) {
      const Bytes sut(size, static_cast<std::byte>(value));
      EchoStamps decoded;
      const bool taken = decode_echo_stamps(sut, decoded);
      if (taken) {
        EXPECT_EQ(size, echo_stamps_size);
        EXPECT_GE(decoded.arrived_ns, 0);
        EXPECT_GE(decoded.echoed_ns, decoded.arrived_ns);
      }
    }
}

} // namespace
