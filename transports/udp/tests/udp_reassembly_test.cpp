// The UDP transport's fragment framing, splitting and reassembly, without sockets: lost,
// duplicated, reordered, foreign, overlapping and inconsistent fragments; eviction by slots and
// by age; the memory bound. Time is passed in, so nothing sleeps.

#include "udp/fragment_header.hpp"
#include "udp/fragmenter.hpp"
#include "udp/reassembler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace {

using namespace std::chrono_literals;
using netprof::Clock;
namespace udp = netprof::udp;

using Bytes = std::vector<std::byte>;

constexpr std::size_t fragment_size = 1000;
constexpr std::size_t max_message = 100'000;
constexpr std::uint64_t source_a = 0x7f000001'1000;
constexpr std::uint64_t source_b = 0x7f000001'2000;
const Clock::time_point t0 = Clock::time_point(1h);

Bytes pattern(std::size_t size, std::uint8_t seed)
{
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  }
  return bytes;
}

// The datagrams a sender would put on the wire for `message`.
std::vector<Bytes> fragments_of(const Bytes& message, std::uint32_t id,
                                std::size_t size = fragment_size)
{
  udp::Fragmenter sut(size, 7); // a small chunk, so that several prepare() calls are needed
  std::vector<Bytes> datagrams;
  const std::uint32_t count = sut.count_for(message.size());
  for (std::uint32_t first = 0; first < count;) {
    const std::size_t prepared = sut.prepare(message, id, first);
    for (std::size_t i = 0; i < prepared; ++i) {
      Bytes datagram;
      for (std::size_t part = 0; part < 2; ++part) {
        const iovec& iov = sut.iovecs()[2 * i + part];
        const auto* begin = static_cast<const std::byte*>(iov.iov_base);
        datagram.insert(datagram.end(), begin, begin + iov.iov_len);
      }
      datagrams.push_back(std::move(datagram));
    }
    first += static_cast<std::uint32_t>(prepared);
  }
  return datagrams;
}

Bytes encoded(const udp::FragmentHeader& header, std::size_t payload_size)
{
  Bytes datagram(udp::fragment_header_size + payload_size, std::byte{0x42});
  udp::encode_fragment_header(header, datagram);
  return datagram;
}

udp::FragmentError decode(const Bytes& datagram)
{
  udp::DecodedFragment ignored;
  return udp::decode_fragment(datagram, ignored);
}

udp::ReassemblyLimits limits(std::size_t slots = 4)
{
  return udp::ReassemblyLimits{max_message, slots, 1s};
}

// Feeds datagrams in the given order; returns every message completed, as copies.
struct Fed {
  std::vector<Bytes> messages;
  std::vector<udp::ReassembledMessage> facts;
};

Fed feed(udp::Reassembler& sut, std::uint64_t source, const std::vector<Bytes>& datagrams,
         Clock::time_point now = t0)
{
  Fed fed;
  for (const Bytes& datagram : datagrams) {
    if (const auto done = sut.accept(source, datagram, now)) {
      fed.messages.emplace_back(done->bytes.begin(), done->bytes.end());
      fed.facts.push_back(*done);
    }
  }
  return fed;
}

// --- the header --------------------------------------------------------------------------

TEST(FragmentHeader, EncodesMagicVersionAndLittleEndianFields)
{
  udp::FragmentHeader header;
  header.message_id = 0x04030201;
  header.total = 0x08070605;
  header.index = 0x0c0b0a09;
  header.count = 0x100f0e0d;
  header.offset = 0x14131211;
  Bytes out(udp::fragment_header_size);
  udp::encode_fragment_header(header, out);
  const Bytes expected = {std::byte{'N'}, std::byte{'P'}, std::byte{'F'}, std::byte{'G'},
                          std::byte{1},   std::byte{0},   std::byte{0},   std::byte{0}};
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()));
  for (std::size_t i = 8; i < udp::fragment_header_size; ++i) {
    EXPECT_EQ(static_cast<unsigned>(out[i]), i - 7) << "byte " << i;
  }
}

TEST(FragmentHeader, DecodesWhatTheFragmenterWrote)
{
  const Bytes message = pattern(2500, 1);
  const std::vector<Bytes> datagrams = fragments_of(message, 77);
  ASSERT_EQ(datagrams.size(), 3u);
  for (std::size_t i = 0; i < datagrams.size(); ++i) {
    udp::DecodedFragment fragment;
    ASSERT_EQ(udp::decode_fragment(datagrams[i], fragment), udp::FragmentError::none) << i;
    EXPECT_EQ(fragment.header.message_id, 77u);
    EXPECT_EQ(fragment.header.total, 2500u);
    EXPECT_EQ(fragment.header.index, i);
    EXPECT_EQ(fragment.header.count, 3u);
    EXPECT_EQ(fragment.header.offset, i * fragment_size);
    EXPECT_EQ(fragment.fragment_size, fragment_size) << "implied by every fragment, the last too";
    EXPECT_EQ(fragment.payload.size(), i < 2 ? fragment_size : 500u);
  }
}

TEST(FragmentHeader, TellsOtherTrafficFromFragments)
{
  EXPECT_EQ(decode(Bytes{}), udp::FragmentError::not_a_fragment);
  EXPECT_EQ(decode(Bytes{std::byte{'N'}, std::byte{'P'}, std::byte{'F'}}),
            udp::FragmentError::not_a_fragment);
  Bytes netprof_message = pattern(100, 0);
  std::copy_n("NPRF", 4, reinterpret_cast<char*>(netprof_message.data()));
  EXPECT_EQ(decode(netprof_message), udp::FragmentError::not_a_fragment);
  EXPECT_FALSE(udp::has_fragment_magic(netprof_message));
}

TEST(FragmentHeader, RejectsUnknownVersionAndReservedBytes)
{
  Bytes datagram = fragments_of(pattern(1500, 2), 1).front();
  ASSERT_EQ(decode(datagram), udp::FragmentError::none);
  for (std::size_t at : {4, 5, 6, 7}) {
    Bytes changed = datagram;
    changed[at] = std::byte{9};
    EXPECT_EQ(decode(changed), udp::FragmentError::bad_version) << "byte " << at;
  }
}

struct BadFragment {
  const char* why;
  udp::FragmentHeader header;
  std::size_t payload;
};

class FragmentHeaderRejects : public ::testing::TestWithParam<BadFragment> {};

TEST_P(FragmentHeaderRejects, AsMalformed)
{
  EXPECT_EQ(decode(encoded(GetParam().header, GetParam().payload)), udp::FragmentError::malformed);
}

// {message_id, total, index, count, offset}, payload bytes. Fragment size 1000 unless said.
INSTANTIATE_TEST_SUITE_P(
    Cases, FragmentHeaderRejects,
    ::testing::Values(BadFragment{"empty payload", {1, 2000, 0, 2, 0}, 0},
                      BadFragment{"count zero", {1, 2000, 0, 0, 0}, 1000},
                      BadFragment{"index equals count", {1, 2000, 2, 2, 2000}, 1000},
                      BadFragment{"index beyond count", {1, 2000, 5, 2, 1000}, 1000},
                      BadFragment{"beyond the total", {1, 1500, 1, 2, 1000}, 1000},
                      BadFragment{"offset not index times size", {1, 3000, 1, 3, 999}, 1000},
                      BadFragment{"overlapping its predecessor", {1, 3000, 1, 3, 500}, 1000},
                      BadFragment{"fragments below the minimum", {1, 300, 0, 2, 0}, 200},
                      BadFragment{"fragments above the maximum", {1, 131000, 0, 2, 0}, 65500},
                      BadFragment{"too many fragments for the total", {1, 1000, 0, 3, 0}, 1000},
                      BadFragment{"too few fragments for the total", {1, 5000, 0, 3, 0}, 1000},
                      BadFragment{"last longer than the others", {1, 3200, 2, 3, 2000}, 1200},
                      BadFragment{"last short of the total", {1, 3000, 2, 3, 2000}, 500},
                      BadFragment{"last at an uneven offset", {1, 2501, 2, 3, 2001}, 500},
                      BadFragment{"single fragment short of the total", {1, 900, 0, 1, 0}, 800},
                      BadFragment{"single fragment at an offset", {1, 900, 0, 1, 100}, 800},
                      BadFragment{
                          "total wraps with the offset", {1, 0xffffffff, 1, 2, 0xfffffff0}, 1000}),
    [](const auto& instance) {
      std::string name = instance.param.why;
      std::replace(name.begin(), name.end(), ' ', '_');
      return name;
    });

TEST(FragmentHeader, TruncatedHeaderIsMalformed)
{
  Bytes datagram = fragments_of(pattern(1500, 3), 1).front();
  datagram.resize(udp::fragment_header_size - 1);
  EXPECT_EQ(decode(datagram), udp::FragmentError::malformed);
}

// --- the fragmenter ----------------------------------------------------------------------

TEST(Fragmenter, SlicesPointIntoTheMessageWithoutCopying)
{
  const Bytes message = pattern(3500, 4);
  udp::Fragmenter sut(fragment_size, 16);
  ASSERT_EQ(sut.count_for(message.size()), 4u);
  ASSERT_EQ(sut.prepare(message, 9, 0), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sut.iovecs()[2 * i].iov_len, udp::fragment_header_size);
    EXPECT_EQ(sut.iovecs()[2 * i + 1].iov_base, message.data() + i * fragment_size);
    EXPECT_EQ(sut.iovecs()[2 * i + 1].iov_len, i < 3 ? fragment_size : 500u);
  }
}

TEST(Fragmenter, ExactMultipleEndsWithAFullFragment)
{
  udp::Fragmenter sut(fragment_size, 16);
  EXPECT_EQ(sut.count_for(2000), 2u);
  EXPECT_EQ(sut.count_for(2001), 3u);
  EXPECT_EQ(sut.count_for(1), 1u);
  const std::vector<Bytes> datagrams = fragments_of(pattern(2000, 5), 1);
  ASSERT_EQ(datagrams.size(), 2u);
  EXPECT_EQ(datagrams[1].size(), udp::fragment_header_size + fragment_size);
}

TEST(Fragmenter, WorksAChunkAtATime)
{
  const Bytes message = pattern(7 * fragment_size, 6);
  udp::Fragmenter sut(fragment_size, 3);
  EXPECT_EQ(sut.prepare(message, 1, 0), 3u);
  EXPECT_EQ(sut.prepare(message, 1, 3), 3u);
  EXPECT_EQ(sut.prepare(message, 1, 6), 1u);
  EXPECT_EQ(sut.iovecs()[1].iov_base, message.data() + 6 * fragment_size);
}

// --- reassembly --------------------------------------------------------------------------

TEST(Reassembler, InOrderFragmentsCompleteOnTheLast)
{
  udp::Reassembler sut(limits());
  const Bytes message = pattern(3500, 7);
  const std::vector<Bytes> datagrams = fragments_of(message, 1);
  for (std::size_t i = 0; i + 1 < datagrams.size(); ++i) {
    EXPECT_FALSE(sut.accept(source_a, datagrams[i], t0)) << "complete before fragment " << i;
  }
  const auto done = sut.accept(source_a, datagrams.back(), t0);
  ASSERT_TRUE(done);
  EXPECT_TRUE(std::equal(done->bytes.begin(), done->bytes.end(), message.begin(), message.end()));
  EXPECT_EQ(done->datagrams, 4u);
  EXPECT_EQ(done->wire_bytes, message.size() + 4 * udp::fragment_header_size);
  EXPECT_EQ(sut.counters().messages, 1u);
  EXPECT_EQ(sut.counters().fragments, 4u);
  EXPECT_EQ(sut.in_progress(), 0u);
}

TEST(Reassembler, AnyOrderGivesTheSameMessage)
{
  const Bytes message = pattern(9999, 8);
  std::vector<Bytes> datagrams = fragments_of(message, 2);
  std::mt19937 random(42);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(datagrams.begin(), datagrams.end(), random);
    udp::Reassembler sut(limits());
    const Fed fed = feed(sut, source_a, datagrams);
    ASSERT_EQ(fed.messages.size(), 1u) << "round " << round;
    EXPECT_EQ(fed.messages.front(), message) << "round " << round;
  }
}

TEST(Reassembler, MessageMissingAFragmentIsNeverDelivered)
{
  udp::Reassembler sut(limits());
  std::vector<Bytes> datagrams = fragments_of(pattern(5000, 9), 3);
  datagrams.erase(datagrams.begin() + 2);
  EXPECT_TRUE(feed(sut, source_a, datagrams).messages.empty());
  EXPECT_EQ(sut.in_progress(), 1u);
  EXPECT_EQ(sut.counters().messages, 0u);
}

TEST(Reassembler, DuplicateFragmentsAreIgnoredAndCounted)
{
  udp::Reassembler sut(limits());
  const Bytes message = pattern(3000, 10);
  const std::vector<Bytes> datagrams = fragments_of(message, 4);
  const Fed fed =
      feed(sut, source_a, {datagrams[0], datagrams[0], datagrams[1], datagrams[1], datagrams[2]});
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(fed.messages.front(), message);
  EXPECT_EQ(fed.facts.front().datagrams, 3u) << "duplicates are not part of the delivery";
  EXPECT_EQ(sut.counters().duplicates, 2u);
}

TEST(Reassembler, FragmentsAfterCompletionAreLateAndStartNothing)
{
  udp::Reassembler sut(limits());
  const std::vector<Bytes> datagrams = fragments_of(pattern(3000, 11), 5);
  ASSERT_EQ(feed(sut, source_a, datagrams).messages.size(), 1u);
  EXPECT_TRUE(feed(sut, source_a, {datagrams[1]}).messages.empty());
  EXPECT_EQ(sut.counters().late, 1u);
  EXPECT_EQ(sut.in_progress(), 0u) << "a straggler must not occupy a slot";
}

TEST(Reassembler, SameMessageIdFromTwoSourcesDoesNotMix)
{
  udp::Reassembler sut(limits());
  const Bytes from_a = pattern(4000, 12);
  const Bytes from_b = pattern(4000, 13);
  const std::vector<Bytes> a = fragments_of(from_a, 6);
  const std::vector<Bytes> b = fragments_of(from_b, 6);
  std::vector<Bytes> completed;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (const auto& [source, datagrams] : {std::pair{source_a, &a}, std::pair{source_b, &b}}) {
      if (const auto done = sut.accept(source, (*datagrams)[i], t0)) {
        completed.emplace_back(done->bytes.begin(), done->bytes.end());
      }
    }
  }
  ASSERT_EQ(completed.size(), 2u);
  EXPECT_EQ(completed[0], from_a);
  EXPECT_EQ(completed[1], from_b);
}

TEST(Reassembler, FragmentDisagreeingWithItsMessageIsDropped)
{
  udp::Reassembler sut(limits());
  const Bytes message = pattern(3000, 14);
  const std::vector<Bytes> datagrams = fragments_of(message, 7);
  // Same source and id, but from a 5000-byte message of the same fragment size.
  const Bytes impostor = fragments_of(pattern(5000, 15), 7)[1];
  // Same source, id and total, but another fragment size (so its offsets overlap ours).
  const Bytes other_size = fragments_of(pattern(3000, 16), 7, 600)[2];
  const Fed fed =
      feed(sut, source_a, {datagrams[0], impostor, other_size, datagrams[1], datagrams[2]});
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(fed.messages.front(), message);
  EXPECT_EQ(sut.counters().inconsistent, 2u);
}

TEST(Reassembler, MalformedAndOversizedFragmentsAreCounted)
{
  udp::Reassembler sut(limits());
  EXPECT_FALSE(sut.accept(source_a, encoded({1, 3000, 1, 3, 500}, 1000), t0));
  EXPECT_FALSE(sut.accept(source_a, fragments_of(pattern(max_message + 1, 17), 8)[0], t0));
  EXPECT_EQ(sut.counters().malformed, 1u);
  EXPECT_EQ(sut.counters().too_large, 1u);
  EXPECT_EQ(sut.in_progress(), 0u);
}

TEST(Reassembler, OneFragmentMessageIsDeliveredAtOnce)
{
  // What a sender does with a small message that happens to begin with the fragment magic.
  udp::Reassembler sut(limits());
  Bytes message = pattern(100, 18);
  std::copy_n("NPFG", 4, reinterpret_cast<char*>(message.data()));
  const std::vector<Bytes> datagrams = fragments_of(message, 9);
  ASSERT_EQ(datagrams.size(), 1u);
  const Fed fed = feed(sut, source_a, datagrams);
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(fed.messages.front(), message);
  EXPECT_EQ(fed.facts.front().wire_bytes, 100 + udp::fragment_header_size);
}

TEST(Reassembler, NewMessageEvictsThePartialThatWaitedLongestWhenSlotsAreFull)
{
  udp::Reassembler sut(limits(2));
  const std::vector<Bytes> a = fragments_of(pattern(3000, 19), 1);
  const std::vector<Bytes> b = fragments_of(pattern(3000, 20), 2);
  const std::vector<Bytes> c = fragments_of(pattern(3000, 21), 3);
  EXPECT_FALSE(sut.accept(source_a, a[0], t0));
  EXPECT_FALSE(sut.accept(source_a, b[0], t0 + 1ms));
  EXPECT_FALSE(sut.accept(source_a, a[1], t0 + 2ms)); // a is now the more recent
  EXPECT_FALSE(sut.accept(source_a, c[0], t0 + 3ms)); // so b goes
  EXPECT_EQ(sut.counters().evicted_for_room, 1u);
  EXPECT_EQ(sut.in_progress(), 2u);

  EXPECT_TRUE(sut.accept(source_a, a[2], t0 + 4ms)) << "a kept its slot";
  EXPECT_FALSE(sut.accept(source_a, b[1], t0 + 5ms)) << "b's stragglers are late";
  EXPECT_EQ(sut.counters().late, 1u);
  EXPECT_FALSE(sut.accept(source_a, c[1], t0 + 6ms));
  EXPECT_TRUE(sut.accept(source_a, c[2], t0 + 7ms));
}

TEST(Reassembler, PartialIdleForTheTimeoutIsEvicted)
{
  udp::Reassembler sut(limits());
  const std::vector<Bytes> datagrams = fragments_of(pattern(3000, 22), 1);
  EXPECT_FALSE(sut.accept(source_a, datagrams[0], t0));
  EXPECT_FALSE(sut.accept(source_a, datagrams[1], t0 + 900ms)); // progress restarts the clock
  sut.expire(t0 + 1800ms);
  EXPECT_EQ(sut.in_progress(), 1u) << "idle for 900 ms only";
  sut.expire(t0 + 1900ms);
  EXPECT_EQ(sut.in_progress(), 0u);
  EXPECT_EQ(sut.counters().evicted_stale, 1u);
  EXPECT_FALSE(sut.accept(source_a, datagrams[2], t0 + 2s)) << "never delivered torn";
  EXPECT_EQ(sut.counters().late, 1u);
}

TEST(Reassembler, SlotsAreReusedWithoutGrowingForSmallerMessages)
{
  udp::Reassembler sut(limits(1));
  ASSERT_EQ(feed(sut, source_a, fragments_of(pattern(50'000, 23), 1)).messages.size(), 1u);
  const std::size_t capacity = sut.slot_capacity(0);
  EXPECT_GE(capacity, 50'000u);
  for (std::uint32_t id = 2; id < 50; ++id) {
    const Bytes message = pattern(1000 + id * 700, static_cast<std::uint8_t>(id));
    const Fed fed = feed(sut, source_a, fragments_of(message, id));
    ASSERT_EQ(fed.messages.size(), 1u);
    ASSERT_EQ(fed.messages.front(), message);
  }
  EXPECT_EQ(sut.slot_capacity(0), capacity);
}

TEST(Reassembler, MemoryStaysWithinTheBoundWhateverArrives)
{
  // Growing messages up to the maximum, then a storm of random fragments: no slot's buffer
  // ever exceeds the largest message, and there are never more than `slots` of them.
  udp::Reassembler sut(limits(3));
  std::mt19937 random(7);
  std::uint32_t id = 100;
  for (std::size_t size = 1001; size <= max_message; size = size * 3 / 2 + 1) {
    const Bytes message = pattern(size, 24);
    const Fed fed = feed(sut, source_a, fragments_of(message, ++id));
    ASSERT_EQ(fed.messages.size(), 1u) << size;
    ASSERT_EQ(fed.messages.front(), message) << size;
  }
  ASSERT_EQ(feed(sut, source_a, fragments_of(pattern(max_message, 25), ++id)).messages.size(), 1u);

  std::uniform_int_distribution<std::uint32_t> small(0, 200);
  std::uniform_int_distribution<std::uint32_t> any;
  constexpr auto beyond = static_cast<std::uint32_t>(max_message + 2000);
  for (int i = 0; i < 20'000; ++i) {
    udp::FragmentHeader header;
    header.message_id = small(random) % 16;
    header.total = i % 2 == 0 ? any(random) % beyond : small(random) * 1000 + 1;
    header.count = small(random) % 120 + 1;
    header.index = small(random) % (header.count + 1);
    header.offset = i % 3 == 0 ? header.index * 1000 : any(random) % beyond;
    const std::size_t payload = i % 3 == 0 ? 1000 : small(random) * 7 + 1;
    const std::uint64_t source = i % 5;
    const auto done =
        sut.accept(source, encoded(header, payload), t0 + std::chrono::milliseconds(i));
    if (done) {
      ASSERT_LE(done->bytes.size(), max_message);
    }
    for (std::size_t slot = 0; slot < sut.slot_count(); ++slot) {
      ASSERT_LE(sut.slot_capacity(slot), max_message) << "after fragment " << i;
    }
    ASSERT_LE(sut.in_progress(), 3u);
  }
  EXPECT_EQ(sut.slot_count(), 3u);
}

} // namespace
