#include <netprof/wire.hpp>

#include "header_fields.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <set>
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
namespace flags = netprof::wire::flags;

using netprof::wire::test::header_fields;
using Bytes = std::vector<std::byte>;

// A whole message: an encoded header followed by `payload_size` bytes, sized exactly so that
// AddressSanitizer sees any read past the end.
Bytes message_for(const Header& header, std::size_t payload_size = 0)
{
  Bytes out(header_size + payload_size, std::byte{0x5A});
  encode_header(header, out);
  return out;
}

Header typical_header()
{
  Header h;
  h.kind = MessageKind::data;
  h.flags = flags::probe;
  h.sender_id = 3;
  h.run_id = 0x0123456789ABCDEF;
  h.sequence = 42;
  h.intended_ns = 1'000'000;
  h.sent_ns = 1'000'250;
  return h;
}

Bytes from_hex(std::initializer_list<unsigned> values)
{
  Bytes out;
  for (const unsigned v : values) {
    out.push_back(static_cast<std::byte>(v));
  }
  return out;
}

// Hand-written wire image of pinned_header(): pins every offset and the byte order.
Header pinned_header()
{
  Header h;
  h.kind = MessageKind::echo;
  h.flags = 0x0003;
  h.sender_id = 0x04030201;
  h.run_id = 0x1122334455667788;
  h.sequence = 0x0102030405060708;
  h.intended_ns = -2;
  h.sent_ns = 0x7FEEDDCCBBAA9988;
  h.payload_length = 0;
  h.record_count = 0xA1B2C3D4;
  return h;
}

const Bytes pinned_bytes = from_hex({
    0x4E, 0x50, 0x52, 0x46,                         // magic: "NPRF"
    0x01,                                           // version
    0x04,                                           // kind = echo
    0x03, 0x00,                                     // flags
    0x01, 0x02, 0x03, 0x04,                         // sender_id
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // run_id
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // sequence
    0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // intended_ns = -2
    0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x7F, // sent_ns
    0x00, 0x00, 0x00, 0x00,                         // payload_length
    0xD4, 0xC3, 0xB2, 0xA1,                         // record_count
});

class HeaderKindRoundTrip : public ::testing::TestWithParam<MessageKind> {};

TEST_P(HeaderKindRoundTrip, DecodesWhatWasEncoded)
{
  Header sut = typical_header();
  sut.kind = GetParam();
  Header decoded;

  ASSERT_EQ(decode_header(message_for(sut), decoded), DecodeError::none);

  EXPECT_EQ(header_fields(decoded), header_fields(sut));
}

INSTANTIATE_TEST_SUITE_P(EveryKind, HeaderKindRoundTrip,
                         ::testing::Values(MessageKind::hello, MessageKind::hello_ack,
                                           MessageKind::data, MessageKind::echo, MessageKind::end,
                                           MessageKind::final_counters, MessageKind::final_ack,
                                           MessageKind::challenge, MessageKind::progress));

TEST(HeaderRoundTrip, PreservesMaximumValues)
{
  Header sut;
  sut.kind = MessageKind::final_ack;
  sut.flags = flags::known;
  sut.sender_id = std::numeric_limits<std::uint32_t>::max();
  sut.run_id = std::numeric_limits<std::uint64_t>::max();
  sut.sequence = std::numeric_limits<std::uint64_t>::max();
  sut.intended_ns = std::numeric_limits<std::int64_t>::max();
  sut.sent_ns = std::numeric_limits<std::int64_t>::max();
  sut.record_count = std::numeric_limits<std::uint32_t>::max();
  Header decoded;

  ASSERT_EQ(decode_header(message_for(sut), decoded), DecodeError::none);

  EXPECT_EQ(header_fields(decoded), header_fields(sut));
}

TEST(HeaderRoundTrip, PreservesNegativeStamps)
{
  Header sut = typical_header();
  sut.intended_ns = std::numeric_limits<std::int64_t>::min();
  sut.sent_ns = -1;
  Header decoded;

  ASSERT_EQ(decode_header(message_for(sut), decoded), DecodeError::none);

  EXPECT_EQ(header_fields(decoded), header_fields(sut));
}

TEST(HeaderLayout, EncodesToHandWrittenBytes)
{
  const Header sut = pinned_header();
  Bytes encoded(header_size);

  encode_header(sut, encoded);

  EXPECT_EQ(encoded, pinned_bytes);
}

TEST(HeaderLayout, DecodesHandWrittenBytes)
{
  const Bytes sut = pinned_bytes;
  Header decoded;

  ASSERT_EQ(decode_header(sut, decoded), DecodeError::none);

  EXPECT_EQ(header_fields(decoded), header_fields(pinned_header()));
}

TEST(HeaderLayout, EncodesMaximumPayloadLengthInItsFourBytes)
{
  Header sut;
  sut.payload_length = std::numeric_limits<std::uint32_t>::max();
  Bytes encoded(header_size);

  encode_header(sut, encoded);

  EXPECT_EQ(Bytes(encoded.begin() + 44, encoded.begin() + 48), from_hex({0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(Bytes(encoded.begin() + 48, encoded.end()), from_hex({0, 0, 0, 0}));
}

TEST(HeaderLayout, EncodeWritesOnlyTheHeaderBytes)
{
  const Header sut = typical_header();
  Bytes buffer(header_size + 8, std::byte{0xEE});

  encode_header(sut, buffer);

  EXPECT_EQ(Bytes(buffer.begin() + header_size, buffer.end()), Bytes(8, std::byte{0xEE}));
}

// A sender encodes a data header once and restamps it per message: each restamped message
// must be byte for byte the one a full encode of its header gives, or a subscriber would count
// a sequence, flag or stamp that was never sent.
TEST(HeaderRestamp, GivesTheBytesOfAFullEncodeOfTheRestampedHeader)
{
  Header first = typical_header();
  first.payload_length = 8;
  first.record_count = 5;
  Bytes restamped = message_for(first, 8);

  Header next = first;
  next.flags = flags::warmup;
  next.sequence = 0xFEDCBA9876543210;
  next.intended_ns = -7;
  next.sent_ns = std::numeric_limits<std::int64_t>::max();
  netprof::wire::restamp_header({next.flags, next.sequence, next.intended_ns, next.sent_ns},
                                restamped);

  EXPECT_EQ(restamped, message_for(next, 8));
  Header decoded;
  ASSERT_EQ(decode_header(restamped, decoded), DecodeError::none);
  EXPECT_EQ(header_fields(decoded), header_fields(next));
}

TEST(HeaderRestamp, LeavesThePayloadAlone)
{
  Bytes message = message_for(typical_header(), 8);

  netprof::wire::restamp_header({flags::probe, 1, 2, 3}, message);

  EXPECT_EQ(Bytes(message.begin() + header_size, message.end()), Bytes(8, std::byte{0x5A}));
}

TEST(HeaderDecode, RejectsEveryTruncatedLength)
{
  const Bytes whole = message_for(typical_header());
  for (std::size_t length = 0; length < header_size; ++length) {
    SCOPED_TRACE("length " + std::to_string(length));
    // Exactly `length` bytes on the heap, so a read past them is an ASan error.
    const Bytes sut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length));
    Header decoded;

    EXPECT_EQ(decode_header(sut, decoded), DecodeError::truncated);
  }
}

TEST(HeaderDecode, RejectsWrongMagic)
{
  Bytes sut = message_for(typical_header());
  sut[3] = std::byte{0x4F};
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_magic);
}

TEST(HeaderDecode, RejectsMagicInTheWrongByteOrder)
{
  Bytes sut = message_for(typical_header());
  const auto big_endian = from_hex({0x46, 0x52, 0x50, 0x4E});
  std::copy(big_endian.begin(), big_endian.end(), sut.begin());
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_magic);
}

TEST(HeaderDecode, RejectsWrongVersion)
{
  for (const unsigned wrong : {0u, 2u, 255u}) {
    SCOPED_TRACE("version " + std::to_string(wrong));
    Bytes sut = message_for(typical_header());
    sut[4] = static_cast<std::byte>(wrong);
    Header decoded;

    EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_version);
  }
}

class HeaderBadKind : public ::testing::TestWithParam<unsigned> {};

TEST_P(HeaderBadKind, IsRejected)
{
  Bytes sut = message_for(typical_header());
  sut[5] = static_cast<std::byte>(GetParam());
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_kind);
}

INSTANTIATE_TEST_SUITE_P(OutOfRange, HeaderBadKind, ::testing::Values(0u, 10u, 255u));

TEST(HeaderDecode, RejectsEveryUnknownFlagBit)
{
  for (unsigned bit = 0; bit < 16; ++bit) {
    const auto flag = static_cast<std::uint16_t>(1u << bit);
    if ((flag & flags::known) != 0) {
      continue;
    }
    SCOPED_TRACE("bit " + std::to_string(bit));
    Header header = typical_header();
    header.flags = static_cast<std::uint16_t>(flags::probe | flag);
    const Bytes sut = message_for(header);
    Header decoded;

    EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_flags);
  }
}

TEST(HeaderDecode, AcceptsEveryKnownFlagCombination)
{
  for (const std::uint16_t value : {std::uint16_t{0}, flags::probe, flags::warmup, flags::known}) {
    SCOPED_TRACE("flags " + std::to_string(value));
    Header header = typical_header();
    header.flags = value;
    const Bytes sut = message_for(header);
    Header decoded;

    ASSERT_EQ(decode_header(sut, decoded), DecodeError::none);
    EXPECT_EQ(decoded.flags, value);
  }
}

TEST(HeaderDecode, RejectsPayloadLengthLargerThanArrived)
{
  Header header = typical_header();
  header.payload_length = 11;
  const Bytes sut = message_for(header, 10);
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::length_mismatch);
}

TEST(HeaderDecode, RejectsPayloadLengthSmallerThanArrived)
{
  Header header = typical_header();
  header.payload_length = 9;
  const Bytes sut = message_for(header, 10);
  Header decoded;

  EXPECT_EQ(decode_header(sut, decoded), DecodeError::length_mismatch);
}

TEST(HeaderDecode, AcceptsMessageWithPayload)
{
  Header header = typical_header();
  header.payload_length = 1000;
  header.record_count = 7;
  const Bytes sut = message_for(header, 1000);
  Header decoded;

  ASSERT_EQ(decode_header(sut, decoded), DecodeError::none);

  EXPECT_EQ(decoded.payload_length, 1000u);
  EXPECT_EQ(decoded.record_count, 7u);
}

TEST(HeaderDecode, ReportsTheFirstFailureInDocumentedOrder)
{
  // Break every check, then repair them one at a time in order: each repair must reveal
  // the next check's error.
  Bytes sut = message_for(typical_header(), 4);
  sut[0] = std::byte{0};                               // magic
  sut[4] = std::byte{9};                               // version
  sut[5] = std::byte{0};                               // kind
  sut[6] = std::byte{0x80};                            // flags
  const Bytes good = message_for(typical_header(), 4); // payload_length 0 vs 4 bytes
  Header decoded;

  EXPECT_EQ(decode_header(std::span(sut).first(header_size - 1), decoded), DecodeError::truncated);
  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_magic);
  sut[0] = good[0];
  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_version);
  sut[4] = good[4];
  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_kind);
  sut[5] = good[5];
  EXPECT_EQ(decode_header(sut, decoded), DecodeError::bad_flags);
  sut[6] = good[6];
  EXPECT_EQ(decode_header(sut, decoded), DecodeError::length_mismatch);
}

TEST(HeaderDecode, LeavesOutputUntouchedOnRejection)
{
  Header header = typical_header();
  header.payload_length = 1;
  const Bytes sut = message_for(header);
  const Header before = pinned_header();
  Header decoded = before;

  ASSERT_EQ(decode_header(sut, decoded), DecodeError::length_mismatch);

  EXPECT_EQ(header_fields(decoded), header_fields(before));
}

TEST(DecodeErrorToString, NamesEveryErrorDistinctly)
{
  const std::array sut = {DecodeError::none,           DecodeError::truncated,
                          DecodeError::bad_magic,      DecodeError::bad_version,
                          DecodeError::bad_kind,       DecodeError::bad_flags,
                          DecodeError::length_mismatch};
  std::set<std::string_view> names;
  for (const DecodeError error : sut) {
    names.insert(netprof::wire::to_string(error));
  }

  EXPECT_EQ(names.size(), sut.size());
  EXPECT_EQ(names.count("unknown"), 0u);
  EXPECT_EQ(netprof::wire::to_string(DecodeError::length_mismatch), "length_mismatch");
}

} // namespace
