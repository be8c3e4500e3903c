#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using netprof::RecordLayout;
using netprof::RecordReader;
using netprof::wire::decode_header;
using netprof::wire::DecodeError;
using netprof::wire::Header;
using netprof::wire::header_size;

using Bytes = std::vector<std::byte>;

constexpr int iterations = 10'000;
constexpr std::uint64_t seed = 0x6E657470726F66; // fixed, so a failure reproduces

// Every buffer is its own exactly-sized heap allocation, so under AddressSanitizer any read
// past its end fails the test.
Bytes random_bytes(std::mt19937_64& rng, std::size_t size)
{
  Bytes out(size);
  for (auto& b : out) {
    b = static_cast<std::byte>(rng());
  }
  return out;
}

TEST(WireFuzz, DecodeHeaderSurvivesRandomBuffers)
{
  std::mt19937_64 rng(seed);
  Header valid;
  Bytes prefix(header_size);
  netprof::wire::encode_header(valid, prefix);

  int accepted = 0;
  for (int i = 0; i < iterations; ++i) {
    Bytes sut = random_bytes(rng, rng() % 200);
    // Plant a valid prefix (magic .. flags) in most buffers so the later checks are exercised
    // too, not only the magic test.
    const std::size_t planted = std::min<std::size_t>(sut.size(), rng() % 9);
    std::copy(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(planted), sut.begin());
    if (planted == 8 && sut.size() >= header_size && rng() % 2 == 0) {
      // ... and sometimes a matching payload_length, so the accept path is fuzzed as well.
      const std::size_t length = sut.size() - header_size;
      for (std::size_t b = 0; b < 4; ++b) {
        sut[44 + b] = static_cast<std::byte>(length >> (8 * b));
      }
    }
    Header decoded;

    const DecodeError result = decode_header(sut, decoded);

    if (result == DecodeError::none) {
      ++accepted;
      ASSERT_EQ(decoded.payload_length, sut.size() - header_size) << "iteration " << i;
    } else {
      ASSERT_LE(static_cast<int>(result), static_cast<int>(DecodeError::length_mismatch));
    }
  }
  EXPECT_GT(accepted, 0) << "the generator should reach the accept path";
}

TEST(WireFuzz, RecordReaderSurvivesRandomAndCorruptedPayloads)
{
  std::mt19937_64 rng(seed);
  constexpr std::uint32_t expected = 4;
  const RecordLayout layout(120, expected);
  Bytes valid(layout.payload_size());
  layout.write(valid);
  RecordReader sut(expected);

  for (int i = 0; i < iterations; ++i) {
    Bytes payload;
    if (i % 2 == 0) {
      payload = random_bytes(rng, rng() % 200);
    } else {
      // A real payload with a few bytes flipped and its length changed: mostly well framed,
      // so the corrupt lengths are what the reader meets.
      payload = valid;
      for (std::uint64_t flips = rng() % 4; flips > 0; --flips) {
        payload[rng() % payload.size()] = static_cast<std::byte>(rng());
      }
      // Bounded explicitly: g++ 12 cannot see that size - 4 does not wrap, and warns.
      const std::size_t longest = payload.size() + 4;
      payload.resize(std::min<std::size_t>(longest, payload.size() - 4 + rng() % 9));
    }
    const auto count = static_cast<std::uint32_t>(rng() % 3 == 0 ? rng() % 8 : expected);

    const std::int64_t found = sut.read(payload, count);

    ASSERT_GE(found, -1) << "iteration " << i;
    ASSERT_LE(found, static_cast<std::int64_t>(count)) << "iteration " << i;
  }
}

} // namespace
