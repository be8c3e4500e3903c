// The keep-last reader's copy out of the ring, alone: every length, both the wide path (32 bytes
// and more, on x86 with AVX2) and the word path, copies what is there and nothing beyond the
// whole words it is allowed to fill. Racing the writer is ring_stress_test.cpp's job.

#include "record_copy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using netprof::shm::copy_racing_writer;

constexpr std::uint64_t guard = 0xdeadbeefcafef00dull;

TEST(RecordCopy, CopiesEveryLengthExactlyAndStaysWithinItsWholeWords)
{
  // A record's worth of distinct bytes: a copy from the wrong offset shows.
  std::vector<std::uint64_t> record(64);
  auto* source = reinterpret_cast<std::byte*>(record.data());
  for (std::size_t i = 0; i < record.size() * 8; ++i)
    source[i] = static_cast<std::byte>(i * 7 + 3);

  for (std::uint64_t length = 0; length <= 8 * (record.size() - 1); ++length) {
    const std::uint64_t words = (length + 7) / 8;
    std::vector<std::uint64_t> out(words + 1, guard);
    copy_racing_writer(source, length, out.data());
    const auto* copied = reinterpret_cast<const std::byte*>(out.data());
    for (std::uint64_t i = 0; i < words * 8; ++i)
      ASSERT_EQ(copied[i], source[i]) << "byte " << i << " of a " << length << "-byte copy";
    EXPECT_EQ(out[words], guard) << "a " << length << "-byte copy wrote past its whole words";
  }
}

TEST(RecordCopy, CopiesFromAnyEightByteAlignedPlaceInARecord)
{
  // Records start 8 bytes into a 64-byte line (after the ring's header): the copy's source is
  // 8-byte aligned, not 32-byte aligned.
  std::vector<std::uint64_t> record(40);
  auto* base = reinterpret_cast<std::byte*>(record.data());
  for (std::size_t i = 0; i < record.size() * 8; ++i)
    base[i] = static_cast<std::byte>(i ^ 0x5a);
  for (std::uint64_t start_word = 1; start_word < 8; ++start_word) {
    const std::uint64_t length = 116; // a 64 B netprof payload and its header
    std::vector<std::uint64_t> out((length + 7) / 8);
    copy_racing_writer(base + start_word * 8, length, out.data());
    const auto* copied = reinterpret_cast<const std::byte*>(out.data());
    for (std::uint64_t i = 0; i < length; ++i)
      ASSERT_EQ(copied[i], base[start_word * 8 + i]) << "from word " << start_word;
  }
}

} // namespace
