// Hostile headers the other wire tests do not pin: absurd lengths and counts, and a rejected
// header of every kind leaving the caller's copy as it was (docs/hostile-input.md).

#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include "header_fields.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace {

using netprof::wire::decode_header;
using netprof::wire::DecodeError;
using netprof::wire::encode_header;
using netprof::wire::Header;
using netprof::wire::header_size;
using netprof::wire::MessageKind;

using netprof::wire::test::header_fields;
using Bytes = std::vector<std::byte>;

Bytes hostile_message_for(const Header& header, std::size_t payload_size)
{
  Bytes out(header_size + payload_size, std::byte{0x20});
  encode_header(header, out);
  return out;
}

Header data_header(std::uint32_t payload_length)
{
  Header h;
  h.kind = MessageKind::data;
  h.run_id = 42;
  h.payload_length = payload_length;
  return h;
}

TEST(HostileHeader, PayloadLengthOfFourGibibytesIsRejectedWhateverArrived)
{
  constexpr std::uint32_t absurd = std::numeric_limits<std::uint32_t>::max();
  for (const std::size_t arrived : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
    SCOPED_TRACE("payload bytes that arrived: " + std::to_string(arrived));
    const Bytes sut = hostile_message_for(data_header(absurd), arrived);
    Header decoded;

    EXPECT_EQ(decode_header(sut, decoded), DecodeError::length_mismatch);
  }
}

TEST(HostileHeader, RecordCountIsLeftToTheReaderWhichRefusesAnAbsurdOneWithoutAllocating)
{
  // The header does not judge record_count (it is an instance tag on a subscriber's
  // messages); the subscriber's RecordReader, built for what the run sends, refuses a count it
  // was not built for before reading a byte.
  Header header = data_header(16);
  header.record_count = std::numeric_limits<std::uint32_t>::max();
  const Bytes sut = hostile_message_for(header, 16);
  Header decoded;
  ASSERT_EQ(decode_header(sut, decoded), DecodeError::none);
  netprof::RecordReader reader(4);

  EXPECT_EQ(reader.read(std::span(sut).subspan(header_size), decoded.record_count), -1);
}

TEST(HostileHeader, AFragmentHeaderIsNotAMessage)
{
  // The UDP transport's fragment magic "NPFG" in front of a message-sized datagram: the core
  // must never see it as one of its own.
  Bytes sut = hostile_message_for(data_header(0), 0);
  sut[0] = std::byte{'N'};
  sut[1] = std::byte{'P'};
  sut[2] = std::byte{'F'};
  sut[3] = std::byte{'G'};
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_magic);
}

struct Breakage {
  const char* name;
  DecodeError expected;
  std::function<void(Bytes&)> apply;
};

class HostileHeaderLeavesOutputUntouched : public ::testing::TestWithParam<Breakage> {};

TEST_P(HostileHeaderLeavesOutputUntouched, OnEveryKindOfRejection)
{
  Bytes sut = hostile_message_for(data_header(8), 8);
  GetParam().apply(sut);
  Header before;
  before.kind = MessageKind::final_ack;
  before.sender_id = 7;
  before.run_id = 0x0123456789ABCDEF;
  before.sequence = 99;
  before.payload_length = 3;
  Header decoded = before;

  EXPECT_EQ(decode_header(sut, decoded), GetParam().expected);
  EXPECT_EQ(header_fields(decoded), header_fields(before));
}

INSTANTIATE_TEST_SUITE_P(
    EveryCheck, HostileHeaderLeavesOutputUntouched,
    ::testing::Values(
        Breakage{"truncated", DecodeError::truncated, [](Bytes& b) { b.resize(header_size - 1); }},
        Breakage{"magic", DecodeError::bad_magic, [](Bytes& b) { b[1] = std::byte{0}; }},
        Breakage{"version", DecodeError::bad_version, [](Bytes& b) { b[4] = std::byte{2}; }},
        Breakage{"kind", DecodeError::bad_kind, [](Bytes& b) { b[5] = std::byte{0}; }},
        Breakage{"flags", DecodeError::bad_flags, [](Bytes& b) { b[7] = std::byte{0x80}; }},
        Breakage{"length", DecodeError::length_mismatch, [](Bytes& b) { b.pop_back(); }}),
    [](const ::testing::TestParamInfo<Breakage>& param_info) {
      return std::string(param_info.param.name);
    });

} // namespace
