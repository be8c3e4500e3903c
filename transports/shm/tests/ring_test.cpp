// The ring over an ordinary array: framing, wrap-around, both history policies, many readers,
// waiting. One thread throughout; ring_stress_test.cpp runs it concurrently, and
// ring_lending_test.cpp writes its records in place.

#include "test_ring.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace netprof::shm; // the ring's types, the objects under test
using netprof::Clock;

TEST(Ring, FormatRefusesWhatIsNotARing)
{
  alignas(64) static std::byte memory[8192];
  EXPECT_FALSE(RingView::format(memory, 1000, 1, History::keep_last, 1)); // not a power of two
  EXPECT_FALSE(RingView::format(memory, 128, 1, History::keep_last, 1));  // below the minimum
  EXPECT_FALSE(RingView::format(memory, 8192, 1, History::keep_last, 1)); // span too small
  EXPECT_FALSE(RingView::format(memory, 1024, 0, History::keep_last, 1)); // no reader
  EXPECT_TRUE(RingView::format(memory, 1024, 2, History::keep_last, 1));
  EXPECT_FALSE(RingView::format({memory + 8, 4096}, 1024, 1, History::keep_last, 1)); // unaligned
}

TEST(Ring, OpenSeesWhatFormatWrote)
{
  TestRing ring(4096, 3, History::keep_all);
  const std::span<std::byte> memory{reinterpret_cast<std::byte*>(&ring.view->writer_line()) - 64,
                                    RingView::bytes_needed(4096, 3)};
  const auto opened = RingView::open(memory);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->capacity(), 4096u);
  EXPECT_EQ(opened->readers(), 3u);
  EXPECT_EQ(opened->history(), History::keep_all);
  EXPECT_EQ(opened->max_message_size(), 4096u / 2 - 8);
  EXPECT_FALSE(RingView::open(memory.first(memory.size() - 1)));
}

TEST(Ring, EmptyRingHasNothingToRead)
{
  TestRing ring(1024, 1, History::keep_last);
  Collector reader(*ring.view, 0);
  EXPECT_FALSE(reader.sut.readable());
  EXPECT_EQ(reader.read(), 0u);
  EXPECT_EQ(reader.sut.overruns(), 0u);
}

TEST(Ring, RecordsArriveIntactAndInOrder)
{
  for (const History history : {History::keep_last, History::keep_all}) {
    OneReader setup(4096, history);
    auto& [ring, reader, sut] = setup;
    for (std::uint64_t i = 0; i < 5; ++i)
      ASSERT_EQ(sut.write(message(i, 10 + i * 33)), WriteResult::written);
    EXPECT_TRUE(reader.sut.readable());
    EXPECT_EQ(reader.read(), 5u);
    ASSERT_EQ(reader.got.size(), 5u);
    for (std::uint64_t i = 0; i < 5; ++i)
      EXPECT_EQ(reader.got[i], message(i, 10 + i * 33)) << to_string(history) << " record " << i;
  }
}

TEST(Ring, PreparingTheNextRecordChangesNothingAReaderSees)
{
  for (const History history : {History::keep_last, History::keep_all}) {
    OneReader setup(1024, history);
    auto& [ring, reader, sut] = setup;
    // Two and a half laps of 192 B records, so some are prepared where a padding record goes.
    for (std::uint64_t i = 0; i < 14; ++i) {
      sut.prepare_next_record();
      const std::uint64_t tail = ring.view->tail();
      EXPECT_FALSE(reader.sut.readable()) << "prepared, not published";
      EXPECT_EQ(reader.read(), 0u);
      ASSERT_EQ(sut.write(message(i, 130)), WriteResult::written);
      EXPECT_GT(ring.view->tail(), tail);
      ASSERT_EQ(reader.read(), 1u) << to_string(history) << " record " << i;
      EXPECT_EQ(reader.got.back(), message(i, 130));
    }
    EXPECT_EQ(reader.sut.overruns(), 0u);
  }
}

TEST(Ring, EmptyMessageIsARecordToo)
{
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  ASSERT_EQ(sut.write({}), WriteResult::written);
  EXPECT_EQ(reader.read(), 1u);
  ASSERT_EQ(reader.got.size(), 1u);
  EXPECT_TRUE(reader.got[0].empty());
}

TEST(Ring, RecordThatWouldStraddleTheEndGoesAfterAPaddingRecord)
{
  for (const History history : {History::keep_last, History::keep_all}) {
    OneReader setup(1024, history);
    auto& [ring, reader, sut] = setup;
    // 300 B + 8 B header = a 320 B record: three fill 960 B, the fourth cannot fit in the
    // 64 B left, so a padding record takes them and the fourth starts the next lap.
    for (std::uint64_t i = 0; i < 3; ++i) {
      ASSERT_EQ(sut.write(message(i, 300)), WriteResult::written);
      ASSERT_EQ(reader.read(), 1u);
    }
    ASSERT_EQ(sut.write(message(3, 300)), WriteResult::written);
    EXPECT_EQ(ring.view->tail(), 1024u + 320u);
    EXPECT_EQ(reader.read(), 1u) << "the padding record is skipped, not delivered";
    ASSERT_EQ(reader.got.size(), 4u);
    EXPECT_EQ(reader.got[3], message(3, 300));
    EXPECT_EQ(reader.sut.position(), 1024u + 320u);
  }
}

TEST(Ring, RecordThatEndsExactlyAtTheEndNeedsNoPadding)
{
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  // 240 B + 8 B = 248 B, padded to 256 B: four records fill the ring exactly.
  ASSERT_TRUE(writes(sut, 0, 4, 240));
  EXPECT_EQ(ring.view->tail(), 1024u);
  EXPECT_EQ(reader.read(), 4u);
  ASSERT_EQ(sut.write(message(4, 240)), WriteResult::written);
  EXPECT_EQ(ring.view->tail(), 1024u + 256u) << "the next lap starts at offset 0, unpadded";
  EXPECT_EQ(reader.read(), 1u);
  EXPECT_EQ(reader.got.back(), message(4, 240));
  EXPECT_EQ(reader.sut.overruns(), 0u);
}

TEST(Ring, LargestMessageFitsWhereverTheWriterStands)
{
  for (const History history : {History::keep_last, History::keep_all}) {
    OneReader setup(4096, history);
    auto& [ring, reader, sut] = setup;
    const std::size_t largest = ring.view->max_message_size();
    EXPECT_EQ(largest, 2048u - 8u);
    // From every 64 B offset: with padding in front, a largest record still fits once the
    // reader has caught up.
    for (std::uint64_t i = 0; i < 70; ++i) {
      ASSERT_EQ(sut.write(message(i, 1)), WriteResult::written);
      ASSERT_EQ(sut.write(message(i, largest)), WriteResult::written) << "after " << i;
      ASSERT_EQ(reader.read(), 2u);
      ASSERT_EQ(reader.got.back(), message(i, largest));
    }
    EXPECT_EQ(reader.sut.overruns(), 0u);
  }
}

TEST(Ring, TooLargeMessageIsRefusedAndNothingIsPublished)
{
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  EXPECT_EQ(sut.write(message(0, ring.view->max_message_size() + 1)), WriteResult::too_large);
  EXPECT_EQ(ring.view->tail(), 0u);
  EXPECT_EQ(reader.read(), 0u);
  ASSERT_EQ(sut.write(message(1, 8)), WriteResult::written);
  EXPECT_EQ(reader.read(), 1u);
  EXPECT_EQ(reader.got[0], message(1, 8));
}

TEST(Ring, KeepLastDetectsOverrunPerReaderAndSkipsToIntactRecords)
{
  TestRing ring(1024, 3, History::keep_last);
  Collector fast(*ring.view, 0);
  Collector medium(*ring.view, 1);
  Collector slow(*ring.view, 2);
  RingWriter sut(*ring.view);
  // 48 B + 8 B, padded to 64 B records: 16 per lap. The writer never waits.
  for (std::uint64_t i = 0; i < 100; ++i) {
    ASSERT_EQ(sut.write(message(i, 48)), WriteResult::written);
    fast.read();
    if (i % 10 == 9)
      medium.read(); // 10 behind at most: within a lap
  }
  slow.read();

  EXPECT_EQ(fast.got.size(), 100u);
  EXPECT_EQ(fast.sut.overruns(), 0u);
  EXPECT_EQ(medium.got.size(), 100u);
  EXPECT_EQ(medium.sut.overruns(), 0u);
  EXPECT_GE(slow.sut.overruns(), 1u) << "a reader six laps behind must notice";
  ASSERT_FALSE(slow.got.empty());
  ASSERT_LE(slow.got.size(), 16u);
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < slow.got.size(); ++i) {
    const std::uint64_t index = index_of(slow.got[i]);
    EXPECT_EQ(slow.got[i], message(index, 48)) << "a lapped reader delivered a damaged record";
    if (i > 0) {
      EXPECT_GT(index, previous);
    }
    previous = index;
  }
  EXPECT_EQ(previous, 99u) << "after skipping, the reader is current";
  EXPECT_GT(slow.sut.bytes_skipped(), 0u);
}

TEST(Ring, KeepLastLappedReaderKeepsGoingAfterTheOverrun)
{
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  ASSERT_TRUE(writes(sut, 0, 40, 100));
  reader.read();
  const std::uint64_t overruns = reader.sut.overruns();
  EXPECT_GE(overruns, 1u);
  reader.got.clear();
  for (std::uint64_t i = 40; i < 45; ++i) {
    ASSERT_EQ(sut.write(message(i, 100)), WriteResult::written);
    ASSERT_EQ(reader.read(), 1u);
    EXPECT_EQ(reader.got.back(), message(i, 100));
  }
  EXPECT_EQ(reader.sut.overruns(), overruns);
}

TEST(Ring, KeepAllWriterIsBackPressuredByTheSlowestReader)
{
  TestRing ring(1024, 2, History::keep_all);
  Collector fast(*ring.view, 0);
  Collector slow(*ring.view, 1);
  RingWriter sut(*ring.view);
  std::uint64_t written = 0;
  while (sut.write(message(written, 48)) == WriteResult::written) {
    ++written;
    fast.read();
    ASSERT_LT(written, 100u) << "the writer never waited";
  }
  EXPECT_EQ(written, 16u) << "a lap of 64 B records";
  EXPECT_EQ(sut.slowest_reader(), std::optional<std::size_t>(1));
  EXPECT_EQ(slow.read(1), 1u);
  EXPECT_EQ(sut.write(message(written, 48)), WriteResult::written) << "room for exactly one";
  EXPECT_EQ(sut.write(message(written + 1, 48)), WriteResult::full);
  slow.read();
  fast.read();
  EXPECT_EQ(slow.got.size(), 17u);
  EXPECT_EQ(fast.got.size(), 17u);
  for (std::uint64_t i = 0; i < 17; ++i)
    EXPECT_EQ(slow.got[i], message(i, 48));
  EXPECT_EQ(slow.sut.overruns(), 0u);
}

TEST(Ring, KeepAllWriterStopsWaitingForADroppedReader)
{
  OneReader setup(1024, History::keep_all);
  auto& [ring, reader, sut] = setup;
  ASSERT_TRUE(writes(sut, 0, 16, 48));
  ASSERT_EQ(sut.write(message(16, 48)), WriteResult::full);
  ring.view->drop_reader(0); // what the publisher does when the reader's process is gone
  EXPECT_EQ(sut.write(message(16, 48)), WriteResult::written);
  EXPECT_TRUE(reader.sut.dropped());
  EXPECT_FALSE(sut.slowest_reader());
}

TEST(Ring, KeepAllWithoutReadersNeverWaits)
{
  TestRing ring(1024, 4, History::keep_all);
  RingWriter sut(*ring.view);
  ASSERT_TRUE(writes(sut, 0, 100, 200));
}

TEST(Ring, ACursorIsClaimedOnceAndFreedOnDetach)
{
  TestRing ring(1024, 1, History::keep_last);
  Collector first(*ring.view, 0, Attach::later);
  Collector second(*ring.view, 0, Attach::later);
  ASSERT_TRUE(first.sut.attach());
  EXPECT_FALSE(second.sut.attach());
  first.sut.detach();
  EXPECT_TRUE(second.sut.attach());
}

TEST(Ring, LateReaderStartsAtTheWritersTail)
{
  TestRing ring(1024, 1, History::keep_all);
  RingWriter sut(*ring.view);
  ASSERT_TRUE(writes(sut, 0, 5, 20));
  Collector late(*ring.view, 0);
  EXPECT_EQ(late.read(), 0u);
  ASSERT_EQ(sut.write(message(5, 20)), WriteResult::written);
  EXPECT_EQ(late.read(), 1u);
  EXPECT_EQ(late.got[0], message(5, 20));
}

TEST(Ring, ManyReadersEachGetEverything)
{
  constexpr std::size_t readers = 64;
  for (const History history : {History::keep_last, History::keep_all}) {
    TestRing ring(8192, readers, history);
    std::vector<std::unique_ptr<Collector>> collectors;
    for (std::size_t i = 0; i < readers; ++i)
      collectors.push_back(std::make_unique<Collector>(*ring.view, i));
    RingWriter sut(*ring.view);
    for (std::uint64_t i = 0; i < 500; ++i) {
      ASSERT_EQ(sut.write(message(i, 1 + (i * 37) % 300)), WriteResult::written);
      if (i % 8 == 7)
        for (auto& collector : collectors)
          collector->read();
    }
    for (auto& collector : collectors) {
      collector->read();
      ASSERT_EQ(collector->got.size(), 500u);
      for (std::uint64_t i = 0; i < 500; ++i)
        ASSERT_EQ(collector->got[i], message(i, 1 + (i * 37) % 300));
      EXPECT_EQ(collector->sut.overruns(), 0u);
    }
  }
}

TEST(Ring, ReaderAheadOfTheTailItSeesNeverGoesBack)
{
  // The writer stores a record's header before its tail, so another core can see the record
  // and still the old tail: the reader is then a record ahead of the tail, which means
  // "nothing new", not "go back" (going back delivered duplicates once).
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  ASSERT_EQ(sut.write(message(0, 40)), WriteResult::written);
  std::atomic_ref<std::uint64_t> tail(ring.view->writer_line().tail);
  const std::uint64_t published = tail.load();
  tail.store(0); // as a reader on another core may still see it
  for (int i = 0; i < 40; ++i)
    reader.read();
  tail.store(published);
  ASSERT_EQ(sut.write(message(1, 40)), WriteResult::written);
  reader.read();
  ASSERT_EQ(reader.got.size(), 2u);
  EXPECT_EQ(reader.got[0], message(0, 40));
  EXPECT_EQ(reader.got[1], message(1, 40));
  EXPECT_EQ(reader.sut.overruns(), 0u);
}

TEST(Ring, ReadHandsOverAtMostTheBatch)
{
  OneReader setup(4096, History::keep_last);
  auto& [ring, reader, sut] = setup;
  ASSERT_TRUE(writes(sut, 0, 10, 10));
  EXPECT_EQ(reader.read(3), 3u);
  EXPECT_EQ(reader.read(100), 7u);
}

// wait() on a line nobody wakes, its predicate always `ready`: what it returned, and how long
// it took.
std::pair<bool, Clock::duration> wait_unwoken(bool ready, Clock::duration timeout)
{
  netprof::shm::WakeLine line{};
  const auto start = Clock::now();
  const bool result = netprof::shm::wait(
      line, [ready] { return ready; }, timeout);
  return {result, Clock::now() - start};
}

TEST(WakeLine, WaitReturnsAtOnceWhenAlreadyReady)
{
  const auto [result, took] = wait_unwoken(true, 5s);
  EXPECT_TRUE(result);
  EXPECT_LT(took, 1s);
}

TEST(WakeLine, WaitTimesOutWhenNothingComes)
{
  const auto [result, took] = wait_unwoken(false, 30ms);
  EXPECT_FALSE(result);
  EXPECT_GE(took, 25ms);
}

TEST(WakeLine, RingWakesASleeperLongBeforeItsTimeout)
{
  OneReader setup(1024, History::keep_last);
  auto& [ring, reader, sut] = setup;
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    const auto deadline = Clock::now() + 10s;
    while (!reader.sut.readable() && Clock::now() < deadline)
      netprof::shm::wait(
          ring.view->wake_line(), [&] { return reader.sut.readable(); }, deadline - Clock::now());
    woke = reader.sut.readable();
  });
  std::this_thread::sleep_for(20ms); // let it fall asleep (not needed for correctness)
  const auto start = Clock::now();
  ASSERT_EQ(sut.write(message(0, 8)), WriteResult::written);
  netprof::shm::ring(ring.view->wake_line());
  sleeper.join();
  EXPECT_TRUE(woke);
  EXPECT_LT(Clock::now() - start, 5s);
}

} // namespace
