// MessageType, the hand-written netprof_dds::Message: its wire form is the plain CDR Cyclone
// writes for the IDL type (encapsulation CDR_LE, options 0, a uint32 length, the bytes), it
// reads back what it wrote and what such bytes say, and it refuses malformed samples (a
// stranger's) instead of reading past them. No participant, no socket.

#include "fastdds_message_type.hpp"

#include <gtest/gtest.h>

#include <fastdds/rtps/common/SerializedPayload.h>

#include <array>
#include <cstring>
#include <vector>

namespace netprof::fastdds_parts {
namespace {

using eprosima::fastrtps::rtps::SerializedPayload_t;

constexpr std::size_t max_bytes = 1024;

std::vector<std::byte> bytes_of(std::initializer_list<int> values)
{
  std::vector<std::byte> bytes;
  for (const int value : values)
    bytes.push_back(static_cast<std::byte>(value));
  return bytes;
}

// A payload holding `wire` as a reader receives it.
SerializedPayload_t payload_of(const std::vector<std::byte>& wire)
{
  SerializedPayload_t payload(static_cast<std::uint32_t>(wire.size()));
  std::memcpy(payload.data, wire.data(), wire.size());
  payload.length = static_cast<std::uint32_t>(wire.size());
  return payload;
}

TEST(FastDdsMessageType, HasTheIdlTypesNameAndNoKey)
{
  MessageType type(max_bytes);
  EXPECT_STREQ(type.getName(), "netprof_dds::Message");
  EXPECT_FALSE(type.m_isGetKeyDefined);
}

TEST(FastDdsMessageType, WritesPlainLittleEndianCdrAsCycloneDoes)
{
  MessageType type(max_bytes);
  const std::vector<std::byte> message = bytes_of({0xde, 0xad, 0xbe});
  MessageSample sample;
  sample.bytes = message;
  EXPECT_EQ(type.getSerializedSizeProvider(&sample)(), 8u + 3u);
  SerializedPayload_t payload(64);
  ASSERT_TRUE(type.serialize(&sample, &payload));
  // CDR_LE (0x0001), options 0, length 3, then the bytes.
  const std::vector<std::byte> expected =
      bytes_of({0x00, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe});
  ASSERT_EQ(payload.length, expected.size());
  EXPECT_EQ(std::memcmp(payload.data, expected.data(), expected.size()), 0);
  EXPECT_EQ(payload.encapsulation, CDR_LE);
}

TEST(FastDdsMessageType, ReadsWhatCycloneWritesAndReusesItsBuffer)
{
  MessageType type(max_bytes);
  SerializedPayload_t first =
      payload_of(bytes_of({0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x11, 0x22}));
  MessageSample sample;
  ASSERT_TRUE(type.deserialize(&first, &sample));
  ASSERT_EQ(sample.bytes.size(), 2u);
  EXPECT_EQ(sample.bytes[1], std::byte{0x22});
  // Big-endian senders are read too: CDR_BE and a big-endian length.
  SerializedPayload_t big =
      payload_of(bytes_of({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x7f}));
  ASSERT_TRUE(type.deserialize(&big, &sample));
  ASSERT_EQ(sample.bytes.size(), 1u);
  EXPECT_EQ(sample.bytes[0], std::byte{0x7f});
}

TEST(FastDdsMessageType, RefusesMalformedSamples)
{
  MessageType type(max_bytes);
  MessageSample sample;
  // Shorter than its header; a length beyond the payload; a length over the largest message.
  for (const std::vector<std::byte>& wire :
       {bytes_of({0x00, 0x01, 0x00}),
        bytes_of({0x00, 0x01, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x01}),
        bytes_of({0x00, 0x01, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00, 0x01})}) {
    SerializedPayload_t payload = payload_of(wire);
    EXPECT_FALSE(type.deserialize(&payload, &sample)) << wire.size() << " bytes";
  }
}

TEST(FastDdsMessageType, ASampleOfNothingIsEmpty)
{
  MessageType type(max_bytes);
  MessageSample written;
  SerializedPayload_t payload(16);
  ASSERT_TRUE(type.serialize(&written, &payload));
  MessageSample read;
  ASSERT_TRUE(type.deserialize(&payload, &read));
  EXPECT_TRUE(read.bytes.empty());
}

} // namespace
} // namespace netprof::fastdds_parts
