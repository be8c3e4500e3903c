// One writer thread and three reader threads on one ring in an ordinary array, in both history
// modes. Every record checks itself: its length and every byte follow from the sequence number
// in its first 8 bytes, so a torn or stale read fails the test. The readers run at different
// speeds (one busy-polls, one dawdles, one sleeps on the futex), so in keep_last the writer
// laps some of them while they copy. Built and run under ThreadSanitizer too
// (-DNETPROF_SANITIZE=thread): every shared access must be an atomic one or ordered by one.

#include "test_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace netprof::shm; // the ring's types, the objects under test
using netprof::Clock;

constexpr std::size_t capacity = 64 * 1024;
constexpr std::size_t reader_count = 3;
constexpr auto run_time = 1500ms;
constexpr std::uint64_t max_records = 2'000'000;

std::size_t length_of(std::uint64_t sequence)
{
  // 8 to about 3 KiB, uneven, so records land at every offset and straddle the end often.
  return 8 + static_cast<std::size_t>((sequence * 2654435761u) % 3000);
}

std::byte byte_of(std::uint64_t sequence, std::size_t i)
{
  return static_cast<std::byte>((sequence * 131 + i * 7 + (i >> 8)) & 0xff);
}

void fill(std::uint64_t sequence, std::vector<std::byte>& out)
{
  out.resize(length_of(sequence));
  for (std::size_t i = 8; i < out.size(); ++i)
    out[i] = byte_of(sequence, i);
  std::memcpy(out.data(), &sequence, 8);
}

struct ReaderReport {
  std::uint64_t received = 0;
  std::uint64_t damaged = 0;
  std::uint64_t out_of_order = 0;
  std::uint64_t missed = 0;
  std::uint64_t overruns = 0;
  std::string first_problem;
};

enum class Pace { busy, dawdle, sleep };

class Stress {
public:
  explicit Stress(History history) : m_ring(capacity, reader_count, history, 0xfeedface) {}

  void run()
  {
    ASSERT_TRUE(m_ring.view);
    std::vector<std::thread> readers;
    std::atomic<std::size_t> attached{0};
    for (std::size_t i = 0; i < reader_count; ++i)
      readers.emplace_back([this, i, &attached] { read_all(i, static_cast<Pace>(i), attached); });
    while (attached.load() < reader_count)
      std::this_thread::yield();

    RingWriter writer(*m_ring.view);
    std::vector<std::byte> record;
    const auto stop_at = Clock::now() + run_time;
    std::uint64_t sequence = 0;
    while (sequence < max_records && Clock::now() < stop_at) {
      fill(sequence, record);
      const WriteResult result = writer.write(record);
      if (result == WriteResult::full) {
        netprof::shm::ring(m_ring.view->wake_line());
        std::this_thread::yield();
        continue;
      }
      ASSERT_EQ(result, WriteResult::written);
      ++sequence;
      if (sequence % 16 == 0)
        netprof::shm::ring(m_ring.view->wake_line());
      else
        netprof::shm::ring_if_sleeping(m_ring.view->wake_line());
    }
    m_written = sequence;
    m_done.store(true, std::memory_order_release);
    netprof::shm::ring(m_ring.view->wake_line());
    for (auto& reader : readers)
      reader.join();
  }

  std::uint64_t written() const { return m_written; }
  const ReaderReport& report(std::size_t i) const { return m_reports[i]; }

private:
  void read_all(std::size_t index, Pace pace, std::atomic<std::size_t>& attached)
  {
    std::vector<std::uint64_t> copy((m_ring.view->max_message_size() + 7) / 8);
    RingReader reader(*m_ring.view, index, copy);
    ReaderReport& report = m_reports[index];
    if (!reader.attach()) {
      report.first_problem = "could not attach";
      ++attached;
      return;
    }
    ++attached;
    std::optional<std::uint64_t> last;
    const auto check = [&](std::span<const std::byte> message) {
      std::uint64_t sequence = 0;
      bool intact = message.size() >= 8;
      if (intact) {
        std::memcpy(&sequence, message.data(), 8);
        intact = message.size() == length_of(sequence);
        for (std::size_t i = 8; intact && i < message.size(); ++i)
          intact = message[i] == byte_of(sequence, i);
      }
      if (!intact) {
        if (report.damaged++ == 0)
          report.first_problem = "damaged record of " + std::to_string(message.size()) +
                                 " B claiming sequence " + std::to_string(sequence);
        return;
      }
      ++report.received;
      if (last && sequence <= *last)
        ++report.out_of_order;
      else if (last)
        report.missed += sequence - *last - 1;
      else
        report.missed += sequence; // every reader attached before the first record
      last = sequence;
      if (pace == Pace::dawdle && sequence % 64 == 0) {
        // Spend a while "processing", so the writer gets ahead (and, in keep_last, laps us
        // now and then while we copy).
        const auto until = Clock::now() + 200us;
        while (Clock::now() < until) {
        }
      }
    };
    for (;;) {
      const bool done = m_done.load(std::memory_order_acquire);
      const std::size_t got = reader.read(check, 32);
      if (got > 0)
        continue;
      if (done && !reader.readable())
        break;
      if (pace == Pace::sleep)
        netprof::shm::wait(
            m_ring.view->wake_line(),
            [&] { return reader.readable() || m_done.load(std::memory_order_acquire); }, 50ms);
    }
    report.overruns = reader.overruns();
    reader.detach();
  }

  TestRing m_ring;
  std::atomic<bool> m_done{false};
  std::uint64_t m_written = 0;
  ReaderReport m_reports[reader_count];
};

void expect_clean(const Stress& stress, bool lossless)
{
  EXPECT_GT(stress.written(), 1000u);
  for (std::size_t i = 0; i < reader_count; ++i) {
    const ReaderReport& report = stress.report(i);
    SCOPED_TRACE("reader " + std::to_string(i));
    EXPECT_EQ(report.damaged, 0u) << report.first_problem;
    EXPECT_EQ(report.out_of_order, 0u);
    EXPECT_GT(report.received, 0u);
    if (lossless) {
      EXPECT_EQ(report.overruns, 0u);
    }
  }
}

TEST(RingStress, KeepLastWriterAndThreeReadersNeverDeliverATornRecord)
{
  Stress sut(History::keep_last);
  ASSERT_NO_FATAL_FAILURE(sut.run());
  expect_clean(sut, false);
  // The dawdling reader is the one the writer laps; without overruns this test would prove
  // little about torn reads.
  EXPECT_GT(sut.report(1).overruns, 0u) << "the writer never lapped the slow reader";
  std::printf("keep-last: %llu written; received %llu/%llu/%llu; overruns %llu/%llu/%llu\n",
              static_cast<unsigned long long>(sut.written()),
              static_cast<unsigned long long>(sut.report(0).received),
              static_cast<unsigned long long>(sut.report(1).received),
              static_cast<unsigned long long>(sut.report(2).received),
              static_cast<unsigned long long>(sut.report(0).overruns),
              static_cast<unsigned long long>(sut.report(1).overruns),
              static_cast<unsigned long long>(sut.report(2).overruns));
}

TEST(RingStress, KeepAllWriterAndThreeReadersLoseNothing)
{
  Stress sut(History::keep_all);
  ASSERT_NO_FATAL_FAILURE(sut.run());
  expect_clean(sut, true);
  for (std::size_t i = 0; i < reader_count; ++i) {
    EXPECT_EQ(sut.report(i).received, sut.written()) << "reader " << i;
    EXPECT_EQ(sut.report(i).missed, 0u) << "reader " << i;
  }
}

} // namespace
