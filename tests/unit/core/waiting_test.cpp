// The wait strategies' receives: block sleeps in the kernel on every receive, as a blocking
// program does; poll-then-block looks a few times without blocking while messages keep
// arriving, and blocks at once after a quiet wait. Waiting for room follows the strategy too.

#include "core/scheduling/waiting.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

namespace {

using namespace netprof;

// Answers each receive() from a script of results, and records which receives could block.
// It has nothing to wait on for room (no RoomWaiter), as a ring in shared memory.
class ScriptedEndpoint : public Endpoint {
public:
  std::deque<ReceiveResult> script;
  int non_blocking = 0;
  int blocking = 0;
  std::vector<Nanoseconds> timeouts;

  SendOutcome send(std::span<const std::byte>) noexcept override { return {}; }
  ReceiveResult receive(MessageSink&, Nanoseconds timeout) noexcept override
  {
    (timeout > Nanoseconds::zero() ? blocking : non_blocking) += 1;
    timeouts.push_back(timeout);
    if (script.empty())
      return ReceiveResult::timed_out;
    const ReceiveResult next = script.front();
    script.pop_front();
    return next;
  }
  EndpointFacts facts() const override { return {}; }
};

// One that can wait for room (a socket that turns writable): the Waiter finds it at setup.
class RoomyEndpoint final : public ScriptedEndpoint, public RoomWaiter {
public:
  int room_waits = 0;
  RoomWait room = RoomWait::ready;

  RoomWait wait_for_room(Nanoseconds) noexcept override
  {
    ++room_waits;
    return room;
  }
};

class NullSink final : public MessageSink {
public:
  void on_message(const Delivery&) noexcept override {}
};

struct WaiterTest : ::testing::Test {
  RoomyEndpoint endpoint;
  NullSink sink;
  StopFlag stop;
  Waiter sut{endpoint, sink, WaitStrategy::poll_then_block, stop};
};

struct BlockingWaiterTest : WaiterTest {
  Waiter blocking{endpoint, sink, WaitStrategy::block, stop};
};

TEST_F(BlockingWaiterTest, EveryReceiveSleepsInTheKernelEvenWhileMessagesFlow)
{
  endpoint.script = {ReceiveResult::received, ReceiveResult::received, ReceiveResult::received};
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(blocking.receive_once(std::chrono::milliseconds(1)));
  EXPECT_EQ(endpoint.non_blocking, 0);
  EXPECT_EQ(endpoint.blocking, 3);
}

// A soft deadline hands the transport the same timeout every time (one SO_RCVTIMEO kept on a
// blocking read); an exact one hands it what is left, so a pacer never wakes late.
TEST_F(BlockingWaiterTest, ASoftDeadlineWaitsWholeSlicesAnExactOneWhatIsLeft)
{
  endpoint.script = {ReceiveResult::received, ReceiveResult::received};
  const auto two_calls = [&] { return endpoint.timeouts.size() >= 2; };
  ASSERT_TRUE(blocking.wait_until(Clock::now() + std::chrono::milliseconds(5), two_calls,
                                  Waiter::Deadline::soft));
  ASSERT_EQ(endpoint.timeouts.size(), 2u);
  EXPECT_EQ(endpoint.timeouts[0], Waiter::slice);
  EXPECT_EQ(endpoint.timeouts[1], Waiter::slice);

  endpoint.timeouts.clear();
  endpoint.script = {ReceiveResult::received};
  const auto one_call = [&] { return !endpoint.timeouts.empty(); };
  ASSERT_TRUE(blocking.wait_until(Clock::now() + std::chrono::milliseconds(5), one_call));
  ASSERT_EQ(endpoint.timeouts.size(), 1u);
  EXPECT_LE(endpoint.timeouts[0], std::chrono::milliseconds(5));
}

// A blocking subscriber read the clock twice per message: the arrival stamp, and the look at
// its housekeeping deadline. A soft deadline is judged by the last arrival stamp instead, after
// a receive that delivered; an exact one (a pacer's) and a receive that delivered nothing
// still read the clock.
struct StampedWaiterTest : WaiterTest {
  Clock::time_point latest_arrival{};
  Waiter stamped{endpoint, sink, WaitStrategy::block, stop, &latest_arrival};

  // Receives, each with `result`, until five have been made or the wait judges its deadline
  // (an hour away on the clock, past by the arrival stamp) passed; how many it made.
  int receives_before_the_deadline(ReceiveResult result, Waiter::Deadline kind)
  {
    latest_arrival = Clock::now() + std::chrono::hours(2);
    endpoint.script.assign(5, result);
    const bool ok = stamped.wait_until(
        Clock::now() + std::chrono::hours(1), [&] { return endpoint.timeouts.size() >= 5; }, kind);
    EXPECT_TRUE(ok);
    return endpoint.blocking;
  }
};

TEST_F(StampedWaiterTest, ASoftDeadlineIsJudgedByTheArrivalStampOfADelivery)
{
  EXPECT_EQ(receives_before_the_deadline(ReceiveResult::received, Waiter::Deadline::soft), 1)
      << "the stamp after the first delivery is past the deadline";
}

TEST_F(StampedWaiterTest, AnExactDeadlineReadsTheClock)
{
  EXPECT_EQ(receives_before_the_deadline(ReceiveResult::received, Waiter::Deadline::exact), 5);
}

TEST_F(StampedWaiterTest, AReceiveThatDeliveredNothingLeavesTheDeadlineToTheClock)
{
  EXPECT_EQ(receives_before_the_deadline(ReceiveResult::timed_out, Waiter::Deadline::soft), 5);
}

// A stamp that stopped moving (handling that took long) cannot hold a soft deadline off: the
// clock is read again every stamps_per_clock_read judgments.
TEST_F(StampedWaiterTest, AStaleStampStillLetsASoftDeadlinePass)
{
  latest_arrival = Clock::now() - std::chrono::hours(1);
  endpoint.script.assign(1'000'000, ReceiveResult::received);
  ASSERT_TRUE(stamped.wait_until(
      Clock::now() + std::chrono::milliseconds(2), [] { return false; }, Waiter::Deadline::soft));
  EXPECT_FALSE(endpoint.script.empty()) << "only running out of messages ended the wait";
}

TEST_F(BlockingWaiterTest, AFullTransportIsWaitedOnForRoomNotPolled)
{
  ASSERT_TRUE(blocking.wait_for_room());
  EXPECT_EQ(endpoint.room_waits, 1);
  EXPECT_EQ(endpoint.blocking, 0); // the transport could wait for room itself
}

TEST(BlockingWaiter, WithNothingToWaitOnForRoomItSleepsInAReceive)
{
  ScriptedEndpoint endpoint;
  NullSink sink;
  StopFlag stop;
  Waiter blocking{endpoint, sink, WaitStrategy::block, stop};
  ASSERT_TRUE(blocking.wait_for_room());
  EXPECT_EQ(endpoint.blocking, 1);
}

TEST_F(BlockingWaiterTest, AFailedWaitForRoomIsAFailure)
{
  endpoint.room = RoomWait::failed;
  EXPECT_FALSE(blocking.wait_for_room());
}

TEST(SpinningWaiter, NeverWaitsForRoomInTheKernel)
{
  RoomyEndpoint endpoint;
  NullSink sink;
  StopFlag stop;
  Waiter sut{endpoint, sink, WaitStrategy::spin, stop};
  ASSERT_TRUE(sut.wait_for_room());
  EXPECT_EQ(endpoint.room_waits, 0);
  EXPECT_EQ(endpoint.blocking, 0);
}

TEST_F(WaiterTest, AfterAQuietWaitTheNextWaitBlocksAtOnce)
{
  endpoint.script = {ReceiveResult::timed_out, ReceiveResult::received};
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1)));
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1)));
  EXPECT_EQ(endpoint.non_blocking, 0);
  EXPECT_EQ(endpoint.blocking, 2);
}

TEST_F(WaiterTest, WhileMessagesFlowItLooksBeforeSleeping)
{
  endpoint.script = {ReceiveResult::received};
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1))); // blocks: nothing flowed yet
  // The next message is there at the third look: no sleep.
  endpoint.script = {ReceiveResult::timed_out, ReceiveResult::timed_out, ReceiveResult::received};
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1)));
  EXPECT_EQ(endpoint.non_blocking, 3);
  EXPECT_EQ(endpoint.blocking, 1);
  // Nothing at any look: it sleeps after Waiter::polls_before_sleeping of them.
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1)));
  EXPECT_EQ(endpoint.non_blocking, 3 + Waiter::polls_before_sleeping);
  EXPECT_EQ(endpoint.blocking, 2);
}

TEST_F(WaiterTest, AFailureWhileLookingIsReported)
{
  endpoint.script = {ReceiveResult::received, ReceiveResult::failed};
  ASSERT_TRUE(sut.receive_once(std::chrono::milliseconds(1)));
  EXPECT_FALSE(sut.receive_once(std::chrono::milliseconds(1)));
}

} // namespace
