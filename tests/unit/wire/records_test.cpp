#include <netprof/records.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using netprof::LayoutStatus;
using netprof::RecordLayout;
using netprof::RecordReader;

using Bytes = std::vector<std::byte>;

Bytes written(const RecordLayout& layout)
{
  Bytes out(layout.payload_size());
  layout.write(out);
  return out;
}

std::uint32_t load_u32(const Bytes& bytes, std::size_t at)
{
  return std::to_integer<std::uint32_t>(bytes[at]) |
         (std::to_integer<std::uint32_t>(bytes[at + 1]) << 8) |
         (std::to_integer<std::uint32_t>(bytes[at + 2]) << 16) |
         (std::to_integer<std::uint32_t>(bytes[at + 3]) << 24);
}

// Value lengths of a well-formed payload, walked independently of RecordReader.
std::vector<std::uint32_t> value_lengths(const Bytes& payload)
{
  std::vector<std::uint32_t> lengths;
  std::size_t at = 0;
  while (at < payload.size()) {
    const std::size_t name_length = std::to_integer<std::size_t>(payload[at]) |
                                    (std::to_integer<std::size_t>(payload[at + 1]) << 8);
    at += 2 + name_length;
    lengths.push_back(load_u32(payload, at));
    at += 4 + lengths.back();
  }
  return lengths;
}

TEST(RecordLayoutMinimum, IsZeroForAnOpaquePayload)
{
  EXPECT_EQ(RecordLayout::minimum_payload_size(0), 0u);
}

TEST(RecordLayoutMinimum, CountsFramingNameAndOneValueBytePerRecord)
{
  // u16 + "varN" + u32 + 1 value byte; the digits of N grow at 10, 100, 1000.
  EXPECT_EQ(RecordLayout::minimum_payload_size(1), 11u);
  EXPECT_EQ(RecordLayout::minimum_payload_size(10), 110u);
  EXPECT_EQ(RecordLayout::minimum_payload_size(11), 122u);
  EXPECT_EQ(RecordLayout::minimum_payload_size(100), 1190u);
  EXPECT_EQ(RecordLayout::minimum_payload_size(1000), 12890u);
}

TEST(RecordLayoutMinimum, HandlesTheLargestRecordCount)
{
  // 4294967295 records: 10 fixed bytes each, plus 8888888890 digits for indices below 10^9
  // and 10 digits each for the 3294967295 indices from 10^9 up.
  EXPECT_EQ(RecordLayout::minimum_payload_size(4294967295u),
            42949672950u + 8888888890u + 32949672950u);
}

TEST(RecordLayout, ReportsItsSizeAndCount)
{
  const RecordLayout sut(500, 5);

  EXPECT_EQ(sut.payload_size(), 500u);
  EXPECT_EQ(sut.record_count(), 5u);
}

TEST(RecordLayout, AcceptsExactlyTheMinimumPayload)
{
  const RecordLayout sut(RecordLayout::minimum_payload_size(100), 100);

  EXPECT_EQ(value_lengths(written(sut)), std::vector<std::uint32_t>(100, 1));
}

// The wire layer says what does not fit; the command line words it (tests/unit/cli).
TEST(RecordLayoutCheck, SaysATooSmallPayloadIsTooSmall)
{
  EXPECT_EQ(RecordLayout::check(128, 100), LayoutStatus::too_small_for_records);
  EXPECT_EQ(RecordLayout::check(1190, 100), LayoutStatus::fits);
}

TEST(RecordLayoutCheck, SaysOneByteBelowTheMinimumIsTooSmall)
{
  EXPECT_EQ(RecordLayout::check(RecordLayout::minimum_payload_size(7) - 1, 7),
            LayoutStatus::too_small_for_records);
}

TEST(RecordLayoutCheck, SaysAPayloadBeyondTheWireLimitIsBeyondIt)
{
  EXPECT_EQ(RecordLayout::check(std::size_t{1} << 32, 0), LayoutStatus::beyond_wire_limit);
  EXPECT_EQ(RecordLayout::check(RecordLayout::max_payload_size, 0), LayoutStatus::fits);
}

TEST(RecordLayout, RefusesALayoutThatDoesNotFitAsTheCallersBug)
{
  EXPECT_THROW(RecordLayout(128, 100), std::invalid_argument);
}

TEST(RecordLayout, RejectsHugeRecordCountWithoutAllocating)
{
  EXPECT_THROW(RecordLayout(1 << 20, 4294967295u), std::invalid_argument);
}

TEST(RecordLayout, SingleRecordFillsTheWholePayload)
{
  const RecordLayout sut(64, 1);

  const Bytes bytes = written(sut);

  const Bytes expected_framing = {std::byte{4},   std::byte{0},   std::byte{'v'}, std::byte{'a'},
                                  std::byte{'r'}, std::byte{'0'}, std::byte{54},  std::byte{0},
                                  std::byte{0},   std::byte{0}};
  EXPECT_EQ(Bytes(bytes.begin(), bytes.begin() + 10), expected_framing);
  EXPECT_EQ(value_lengths(bytes), std::vector<std::uint32_t>{54});
}

TEST(RecordLayout, SplitsValueBytesAsEvenlyAsPossible)
{
  // 3 records of framing 2 + 4 + 4 = 10 each; 100 - 30 = 70 value bytes = 24 + 23 + 23.
  const RecordLayout sut(100, 3);

  EXPECT_EQ(value_lengths(written(sut)), (std::vector<std::uint32_t>{24, 23, 23}));
}

TEST(RecordLayout, WritesExactlyPayloadSizeBytes)
{
  const RecordLayout sut(300, 10);
  Bytes buffer(300 + 16, std::byte{0xEE});

  sut.write(buffer);

  EXPECT_EQ(Bytes(buffer.begin() + 300, buffer.end()), Bytes(16, std::byte{0xEE}));
  EXPECT_EQ(value_lengths(Bytes(buffer.begin(), buffer.begin() + 300)).size(), 10u);
}

TEST(RecordLayout, OpaquePayloadIsAFixedPatternOfExactlyPayloadSize)
{
  const RecordLayout sut(64, 0);
  Bytes first(64 + 8, std::byte{0xEE});
  Bytes second(64 + 8, std::byte{0x11});

  sut.write(first);
  sut.write(second);

  EXPECT_EQ(sut.record_count(), 0u);
  EXPECT_EQ(Bytes(first.begin(), first.begin() + 64), Bytes(second.begin(), second.begin() + 64));
  EXPECT_EQ(Bytes(first.begin() + 64, first.end()), Bytes(8, std::byte{0xEE}));
}

class RecordRoundTrip : public ::testing::TestWithParam<std::tuple<std::uint32_t, std::size_t>> {};

TEST_P(RecordRoundTrip, ReaderFindsEveryRecordWritten)
{
  const auto [count, slack] = GetParam();
  const RecordLayout layout(RecordLayout::minimum_payload_size(count) + slack, count);
  const Bytes payload = written(layout);
  RecordReader sut(count);

  EXPECT_EQ(sut.read(payload, count), static_cast<std::int64_t>(count));
}

INSTANTIATE_TEST_SUITE_P(SeveralCounts, RecordRoundTrip,
                         ::testing::Combine(::testing::Values(1u, 2u, 10u, 11u, 100u, 1000u),
                                            ::testing::Values(0u, 7u, 4096u)));

TEST(RecordReader, ReadsAnOpaquePayloadAsZeroRecords)
{
  const Bytes payload = written(RecordLayout(64, 0));
  RecordReader sut(0);

  EXPECT_EQ(sut.read(payload, 0), 0);
}

TEST(RecordReader, RejectsRecordCountDifferentFromExpected)
{
  const Bytes payload = written(RecordLayout(200, 4));
  RecordReader sut(4);

  EXPECT_EQ(sut.read(payload, 3), -1);
  EXPECT_EQ(sut.read(payload, 5), -1);
  EXPECT_EQ(sut.read(payload, 0), -1);
}

TEST(RecordReader, RejectsPayloadWrittenForAnotherCount)
{
  const Bytes payload = written(RecordLayout(200, 4));
  RecordReader sut(5);

  EXPECT_EQ(sut.read(payload, 5), -1);
}

TEST(RecordReader, RejectsEveryTruncation)
{
  const Bytes whole = written(RecordLayout(60, 3));
  RecordReader sut(3);
  for (std::size_t length = 0; length < whole.size(); ++length) {
    SCOPED_TRACE("length " + std::to_string(length));
    const Bytes payload(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length));

    EXPECT_EQ(sut.read(payload, 3), -1);
  }
}

TEST(RecordReader, RejectsNameLengthRunningPastTheEnd)
{
  Bytes payload = written(RecordLayout(60, 3));
  payload[0] = std::byte{0xFF};
  payload[1] = std::byte{0xFF};
  RecordReader sut(3);

  EXPECT_EQ(sut.read(payload, 3), -1);
}

TEST(RecordReader, RejectsValueLengthRunningPastTheEnd)
{
  Bytes payload = written(RecordLayout(60, 3));
  for (std::size_t i = 6; i < 10; ++i) {
    payload[i] = std::byte{0xFF}; // first record's value_length = 0xFFFFFFFF
  }
  RecordReader sut(3);

  EXPECT_EQ(sut.read(payload, 3), -1);
}

TEST(RecordReader, RejectsTrailingBytes)
{
  Bytes payload = written(RecordLayout(60, 3));
  payload.push_back(std::byte{0});
  RecordReader sut(3);

  EXPECT_EQ(sut.read(payload, 3), -1);
}

TEST(RecordReader, CountsOnlyNamesItKnows)
{
  Bytes payload = written(RecordLayout(60, 3));
  payload[3] = std::byte{'b'}; // "var0" -> "vbr0": well formed, but not a known name
  RecordReader sut(3);

  EXPECT_EQ(sut.read(payload, 3), 2);
}

TEST(RecordReader, CanReadTheSamePayloadRepeatedly)
{
  const Bytes payload = written(RecordLayout(500, 20));
  RecordReader sut(20);

  EXPECT_EQ(sut.read(payload, 20), 20);
  EXPECT_EQ(sut.read(payload, 20), 20);
}

} // namespace
