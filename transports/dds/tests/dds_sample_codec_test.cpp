// --payload-type and --dds-keys without a socket: each sample type carries any message of
// netprof's bit for bit, through Cyclone's own CDR serializer (the code a writer and a reader
// run), and --dds-keys is parsed from the dds transport's options.

#include "dds_sample_codec.hpp"

#include "common/dds_family_options.hpp"

#include <netprof/errors.hpp>

#include <dds/ddsi/ddsi_cdrstream.h>
#include <dds/ddsi/q_protocol.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

namespace netprof {
namespace {

using dds_parts::choose_sample_type;
using dds_parts::SampleCodec;
using dds_parts::SampleType;

constexpr std::size_t header_bytes = 52;
constexpr std::size_t largest_message = (std::size_t{1} << 20) + header_bytes;

std::vector<std::byte> random_bytes(std::size_t size, unsigned seed)
{
  // Every bit pattern, NaNs in the elements' doubles included, must come through.
  std::mt19937 random(seed);
  std::vector<std::byte> bytes(size);
  for (std::byte& byte : bytes)
    byte = static_cast<std::byte>(random() & 0xff);
  return bytes;
}

// A sample as a reader gets it: serialized by Cyclone's CDR writer, then read into a fresh
// sample by its CDR reader, which allocates what the sample points at (freed with it).
class Serialized {
public:
  Serialized(const void* sample, const dds_topic_descriptor_t& type) : m_type(type)
  {
    dds_ostream_t out;
    dds_ostream_init(&out, 0, CDR_ENC_VERSION_1);
    dds_stream_write(&out, static_cast<const char*>(sample), type.m_ops);
    m_size = out.m_index;
    dds_istream_t in;
    dds_istream_init(&in, out.m_index, out.m_buffer, CDR_ENC_VERSION_1);
    m_sample = std::make_unique<std::byte[]>(type.m_size);
    dds_stream_read(&in, reinterpret_cast<char*>(m_sample.get()), type.m_ops);
    dds_istream_fini(&in);
    dds_ostream_fini(&out);
  }
  ~Serialized() { dds_sample_free(m_sample.get(), &m_type, DDS_FREE_CONTENTS); }
  Serialized(const Serialized&) = delete;
  Serialized& operator=(const Serialized&) = delete;

  const void* sample() const { return m_sample.get(); }
  std::size_t size() const { return m_size; }

private:
  const dds_topic_descriptor_t& m_type;
  std::unique_ptr<std::byte[]> m_sample;
  std::size_t m_size = 0;
};

std::vector<std::byte> round_trip(SampleCodec& writer, SampleCodec& reader,
                                  std::span<const std::byte> message, std::uint32_t key = 0)
{
  const void* sample = writer.sample_of(message, key);
  if (sample == nullptr)
    return {};
  const Serialized wire(sample, *writer.type().descriptor);
  const std::span<const std::byte> back = reader.message_of(wire.sample());
  return {back.begin(), back.end()};
}

struct Case {
  PayloadType payload;
  std::uint32_t keys;
};

class SampleCodecTest : public ::testing::TestWithParam<Case> {
protected:
  SampleType type_for(std::size_t payload) const
  {
    return choose_sample_type(GetParam().payload, GetParam().keys, payload);
  }
};

TEST_P(SampleCodecTest, DataMessagesComeBackBitForBitWithTheKeptPayload)
{
  for (const std::size_t payload : {1, 31, 32, 33, 64, 1000, 1024, 16 * 1024}) {
    const SampleType type = type_for(payload);
    SampleCodec sut(type, header_bytes, largest_message);
    SampleCodec reader(type, header_bytes, largest_message);
    std::vector<std::byte> message = random_bytes(header_bytes + payload, 7);
    const std::span<std::byte> kept = std::span(message).subspan(header_bytes);
    sut.keep_payload(kept);

    for (unsigned sequence = 0; sequence < 3; ++sequence) {
      // The core rewrites only the header in front of the kept payload.
      const std::vector<std::byte> header = random_bytes(header_bytes, 100 + sequence);
      std::memcpy(message.data(), header.data(), header_bytes);
      ASSERT_TRUE(sut.is_kept(message)) << payload;

      EXPECT_EQ(round_trip(sut, reader, message, sequence), message) << "-s " << payload;
    }
  }
}

TEST_P(SampleCodecTest, OtherMessagesComeBackBitForBitToo)
{
  // Control messages (a challenge, an echo, counters) and a full echo as large as a probe.
  const SampleType type = type_for(1024);
  SampleCodec sut(type, header_bytes, largest_message);
  SampleCodec reader(type, header_bytes, largest_message);
  const std::vector<std::byte> kept = random_bytes(1024, 1);
  sut.keep_payload(kept);
  for (const std::size_t size : {52, 68, 132, 204, 52 + 1024}) {
    const std::vector<std::byte> message = random_bytes(size, static_cast<unsigned>(size));
    ASSERT_FALSE(sut.is_kept(message)) << "a message elsewhere is not the kept payload's";

    EXPECT_EQ(round_trip(sut, reader, message), message) << size << " B";
  }
}

TEST_P(SampleCodecTest, AZeroedSampleOfTheTypeGivesAnEmptyMessage)
{
  const SampleType type = type_for(64);
  SampleCodec reader(type, header_bytes, largest_message);
  // A zeroed sample holds nothing: an empty message, which the core rejects.
  const auto zeroed = std::make_unique<std::byte[]>(type.descriptor->m_size);

  EXPECT_TRUE(reader.message_of(zeroed.get()).empty());
}

INSTANTIATE_TEST_SUITE_P(
    EveryType, SampleCodecTest,
    ::testing::Values(Case{PayloadType::bytes, 1}, Case{PayloadType::bytes, 8},
                      Case{PayloadType::flat_struct, 1}, Case{PayloadType::flat_struct, 8},
                      Case{PayloadType::nested, 1}, Case{PayloadType::nested, 8}),
    [](const ::testing::TestParamInfo<Case>& tested) {
      const Case& named = tested.param;
      const std::string type = to_string(named.payload);
      return (type == "struct" ? "flat" : type) + (named.keys > 1 ? "_keyed" : "");
    });

TEST(SampleType, TheUnkeyedBytesTypeIsTheOneEveryVendorMeets)
{
  EXPECT_STREQ(choose_sample_type(PayloadType::bytes, 1, 128).descriptor->m_typename,
               "netprof_dds::Message");
  EXPECT_STREQ(choose_sample_type(PayloadType::bytes, 0, 128).descriptor->m_typename,
               "netprof_dds::Message")
      << "--dds-keys 0 is unkeyed too";
  EXPECT_STREQ(choose_sample_type(PayloadType::bytes, 2, 128).descriptor->m_typename,
               "netprof_dds::KeyedMessage");
  EXPECT_EQ(choose_sample_type(PayloadType::nested, 2, 128).descriptor->m_nkeys, 1u);
}

TEST(SampleType, AFlatStructIsTheSmallestThatHoldsThePayloadAndAnyControlMessage)
{
  EXPECT_EQ(choose_sample_type(PayloadType::flat_struct, 1, 64).flat_payload, 256u);
  EXPECT_EQ(choose_sample_type(PayloadType::flat_struct, 1, 1024).flat_payload, 1024u);
  EXPECT_EQ(choose_sample_type(PayloadType::flat_struct, 1, 1025).flat_payload, 2048u);
  EXPECT_EQ(choose_sample_type(PayloadType::flat_struct, 1, std::size_t{1} << 20).flat_payload,
            std::size_t{1} << 20);
  EXPECT_THROW(choose_sample_type(PayloadType::flat_struct, 1, (std::size_t{1} << 20) + 1),
               TransportError);
}

TEST(SampleType, ANestedSampleSerializesToAboutOneAndAHalfTimesThePayload)
{
  // Each element's name costs 16 B beside its 32 B of payload: the DDS evaluation's price.
  const SampleType type = choose_sample_type(PayloadType::nested, 1, 1024);
  SampleCodec sut(type, header_bytes, largest_message);
  const std::vector<std::byte> message = random_bytes(header_bytes + 1024, 3);
  const Serialized wire(sut.sample_of(message, 0), *type.descriptor);

  EXPECT_EQ(sut.serialized_size(message.size()), wire.size());
}

TEST(SampleCodec, AMessageLargerThanTheFlatArrayIsRefusedNotCut)
{
  const SampleType type = choose_sample_type(PayloadType::flat_struct, 1, 256);
  SampleCodec sut(type, header_bytes, largest_message);
  const std::vector<std::byte> message(header_bytes + 256 + 64 + 1);

  EXPECT_EQ(sut.sample_of(message, 0), nullptr);
}

TEST(DdsKeysOption, SpreadsOverKInstancesAndZeroOrOneIsUnkeyed)
{
  transport_common::DdsVendor vendor;
  vendor.prefix = "dds";
  vendor.keys_help = "instances";
  const OptionGroup options = transport_common::dds_family_options(vendor);
  const auto keys = [&](std::vector<std::string> arguments) {
    return transport_common::parse_dds_family_settings("dds", options,
                                                       parse_options(arguments, {&options}))
        .keys;
  };

  EXPECT_EQ(keys({}), 1u);
  EXPECT_EQ(keys({"--dds-keys", "0"}), 1u);
  EXPECT_EQ(keys({"--dds-keys", "8"}), 8u);
  EXPECT_THROW(keys({"--dds-keys", "65537"}), UsageError);
  vendor.prefix = "fastdds";
  vendor.keys_help.clear();
  EXPECT_FALSE(transport_common::dds_family_options(vendor).contains("fastdds-keys"))
      << "a vendor without keyed types has no such option";
}

} // namespace
} // namespace netprof
