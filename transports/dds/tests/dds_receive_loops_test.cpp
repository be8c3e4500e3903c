// DdsReceiveLoops with --VENDOR-notify listener, over a vendor that is a plain object: a sample
// that the listener finds with the sink not lent must not leave the core asleep beside it. The
// listener's waitset wakes only when woken, so such a sample waited out the core's whole receive
// timeout (20 ms in a subscriber's run loop: a ping-pong's round trips had a 20 ms tail).
// No vendor, no thread: the arrival is made to fall exactly where the race put it.

#include "common/dds_receive_loops.hpp"

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace {

using namespace std::chrono_literals;
using namespace netprof;
using namespace netprof::transport_common;
using netprof::testing::CountingSink;

constexpr DdsVendorWords words{"dds", "the test's", "--dds-reliability", "the same domain"};

DdsEndpointSettings listening_settings()
{
  DdsEndpointSettings settings;
  settings.role = Role::subscriber;
  settings.topic_prefix = "loops_test";
  settings.notify = DdsNotify::listener;
  return settings;
}

// A reader's history of `pending` samples, the listener's wake-up as a flag, and a wait that
// returns at once but notes when the core would have slept on a sample nobody woke it for.
class ScriptedVendor final : public DdsReceiveLoops<ScriptedVendor> {
public:
  ScriptedVendor() : DdsReceiveLoops(listening_settings(), words)
  {
    m_discovered_at = Clock::now();
    m_next_status_check = Clock::now() + 1h;
  }

  // The vendor's receive thread, on a sample that has just arrived.
  void arrive() noexcept
  {
    ++m_pending;
    hand_over_on_listener_thread();
  }

  ReceiveResult receive(MessageSink& sink, Nanoseconds timeout) noexcept
  {
    return receive_as_notified(sink, timeout);
  }
  // Samples delivered on the "listener's" thread (arrive() while the sink was lent).
  std::uint64_t handed_over() const noexcept { return m_delivered_by_listener; }

  // Called once, when the core's look at the history first finds nothing; and once, in a wait.
  std::function<void()> after_empty_look;
  std::function<void()> during_wait;
  int waits = 0;
  int waits_beside_a_sample = 0; // a sample in the history, and no wake-up to end the wait

  int take(MessageSink& sink, bool always) noexcept
  {
    if (!begin_take(always)) {
      empty_look();
      return 0;
    }
    const int taken = m_pending;
    for (; m_pending > 0; --m_pending)
      sink.on_message(Delivery{m_bytes, 1, m_bytes.size(), {}});
    if (taken == 0)
      empty_look();
    return end_take(taken, taken, 32);
  }
  bool check_statuses() noexcept { return true; }
  bool wait(Nanoseconds, bool&) noexcept
  {
    ++waits;
    if (during_wait)
      std::exchange(during_wait, nullptr)();
    waits_beside_a_sample += m_pending > 0 && !m_woken ? 1 : 0;
    return true;
  }
  void wake_core() noexcept { m_woken = true; }
  void clear_wake() noexcept { m_woken = false; }

private:
  void empty_look()
  {
    if (after_empty_look)
      std::exchange(after_empty_look, nullptr)();
  }

  int m_pending = 0;
  bool m_woken = false;
  std::array<std::byte, 8> m_bytes{};
};

TEST(DdsListenerLoops, ASampleArrivingBetweenTheCoresLookAndItsLendingDoesNotWaitOutTheTimeout)
{
  ScriptedVendor vendor;
  CountingSink sink;
  vendor.after_empty_look = [&vendor] { vendor.arrive(); }; // the sink is not lent yet
  EXPECT_EQ(vendor.receive(sink, 20ms), ReceiveResult::received);
  EXPECT_EQ(sink.count, 1U);
  EXPECT_EQ(vendor.waits_beside_a_sample, 0)
      << "the core slept beside a sample it was not woken for";
}

TEST(DdsListenerLoops, ASampleArrivingWhileTheCoreWaitsIsHandedOverOnTheListenersThread)
{
  ScriptedVendor vendor;
  CountingSink sink;
  vendor.during_wait = [&vendor] { vendor.arrive(); }; // lent: the listener delivers it
  EXPECT_EQ(vendor.receive(sink, 20ms), ReceiveResult::received);
  EXPECT_EQ(sink.count, 1U);
  EXPECT_EQ(vendor.handed_over(), 1U) << "the core took it, not the listener";
  EXPECT_EQ(vendor.waits, 1);
  EXPECT_EQ(vendor.waits_beside_a_sample, 0);
}

TEST(DdsListenerLoops, ASampleArrivingBetweenReceivesIsTakenByTheNextOneWithoutWaiting)
{
  ScriptedVendor vendor;
  CountingSink sink;
  vendor.arrive(); // nothing lent: marked for the core
  EXPECT_EQ(vendor.receive(sink, 20ms), ReceiveResult::received);
  EXPECT_EQ(sink.count, 1U);
  EXPECT_EQ(vendor.handed_over(), 0U);
  EXPECT_EQ(vendor.waits, 0);
}

} // namespace
