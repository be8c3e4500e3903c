// The ppoll whose wait ends on a timerfd (common/timed_poll.hpp), which the UDP, stream and
// POSIX mq endpoints wait in: it must end when a descriptor is ready, end when the wait is over
// and not before, even after an earlier wait left its timer to fire, and never wait for ever.

#include "common/timed_poll.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <thread>

namespace {

using namespace std::chrono_literals;
using netprof::Clock;
using netprof::Nanoseconds;
using netprof::transport_common::TimedPoll;

class TimedPollTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(pipe2(m_pipe.data(), O_NONBLOCK | O_CLOEXEC), 0); }
  void TearDown() override
  {
    close(m_pipe[0]);
    close(m_pipe[1]);
  }

  // Waits on the pipe's read end; how many of it were ready, and how long that took.
  int wait_on_pipe(Nanoseconds wait, Nanoseconds& took)
  {
    std::array<pollfd, 2> fds{pollfd{m_pipe[0], POLLIN, 0}, pollfd{}};
    const auto start = Clock::now();
    const int ready = m_poll.wait(fds, wait);
    took = Clock::now() - start;
    m_readable = (fds[0].revents & POLLIN) != 0;
    return ready;
  }
  void make_readable() { ASSERT_EQ(write(m_pipe[1], "x", 1), 1); }
  void drain()
  {
    char byte = 0;
    ASSERT_EQ(read(m_pipe[0], &byte, 1), 1);
  }

  std::array<int, 2> m_pipe{-1, -1};
  TimedPoll m_poll;
  bool m_readable = false;
};

TEST_F(TimedPollTest, AReadyDescriptorEndsTheWaitAndIsCountedAlone)
{
  make_readable();
  Nanoseconds took{};
  EXPECT_EQ(wait_on_pipe(10s, took), 1);
  EXPECT_TRUE(m_readable);
  EXPECT_LT(took, 5s);
}

TEST_F(TimedPollTest, NothingReadyEndsWhenTheWaitIsOverAndNotBefore)
{
  Nanoseconds took{};
  EXPECT_EQ(wait_on_pipe(30ms, took), 0);
  EXPECT_FALSE(m_readable);
  EXPECT_GE(took, 30ms);
}

TEST_F(TimedPollTest, ANoWaitLooksOnceAndReturns)
{
  // A zero it_value disarms a timerfd: armed so, the ppoll would wait for ever.
  Nanoseconds took{};
  EXPECT_EQ(wait_on_pipe(Nanoseconds::zero(), took), 0);
  EXPECT_EQ(wait_on_pipe(-1ms, took), 0);
  make_readable();
  EXPECT_EQ(wait_on_pipe(Nanoseconds::zero(), took), 1);
}

TEST_F(TimedPollTest, ATimerLeftByAnEarlierWaitDoesNotEndTheNextOne)
{
  make_readable();
  Nanoseconds took{};
  ASSERT_EQ(wait_on_pipe(1ms, took), 1); // ends at once, its timer left armed
  std::this_thread::sleep_for(20ms);     // which fires meanwhile
  drain();
  EXPECT_EQ(wait_on_pipe(30ms, took), 0);
  EXPECT_GE(took, 30ms);
}

} // namespace
