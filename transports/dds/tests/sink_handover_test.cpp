// SinkHandover: the core's sink reaches another thread (Cyclone's listener, here a plain thread)
// only while lent, and the core gets it back only once that thread is out of it. No sockets;
// under TSan the sink's plain counter shows whether the hand-over orders the two threads.

#include "common/sink_handover.hpp"

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

using namespace std::chrono_literals;
using netprof::Delivery;
using netprof::testing::CountingSink;
using netprof::transport_common::SinkHandover;

TEST(SinkHandover, NotLentItCannotBeBorrowed)
{
  SinkHandover sut;
  EXPECT_EQ(sut.borrow(), nullptr);
  CountingSink sink;
  sut.lend(sink);
  sut.revoke();
  EXPECT_EQ(sut.borrow(), nullptr);
  sut.revoke(); // twice is harmless
}

TEST(SinkHandover, LentTheBorrowerGetsTheSinkAndNoSecondBorrowerDoes)
{
  SinkHandover sut;
  CountingSink sink;
  sut.lend(sink);
  netprof::MessageSink* borrowed = sut.borrow();
  EXPECT_EQ(borrowed, &sink);
  EXPECT_EQ(sut.borrow(), nullptr); // a second receive thread finds it taken
  sut.give_back();
  EXPECT_EQ(sut.borrow(), &sink);
  sut.give_back();
  sut.revoke();
}

TEST(SinkHandover, RevokeWaitsForTheBorrowerToGiveItBack)
{
  SinkHandover sut;
  CountingSink sink;
  std::atomic<bool> inside{false};
  sut.lend(sink);
  std::thread listener([&] {
    netprof::MessageSink* borrowed = sut.borrow();
    ASSERT_NE(borrowed, nullptr);
    inside.store(true);
    std::this_thread::sleep_for(50ms); // a take and an echo, slowed down
    borrowed->on_message(Delivery{});
    sut.give_back();
  });
  while (!inside.load())
    std::this_thread::yield();
  sut.revoke();
  EXPECT_EQ(sink.count, 1U); // the delivery made while it was lent is seen once revoked
  listener.join();
}

TEST(SinkHandover, ManyHandOversBetweenTwoThreadsLoseNoDelivery)
{
  SinkHandover sut;
  CountingSink sink;
  std::atomic<bool> done{false};
  std::size_t by_listener = 0; // only the listener thread writes it
  std::thread listener([&] {
    while (!done.load()) {
      if (netprof::MessageSink* borrowed = sut.borrow()) {
        borrowed->on_message(Delivery{});
        ++by_listener;
        sut.give_back();
      }
    }
  });
  std::size_t by_core = 0;
  for (int i = 0; i < 2000; ++i) {
    sut.lend(sink);
    std::this_thread::yield();
    sut.revoke();
    sink.on_message(Delivery{}); // the core's own use, between lends
    ++by_core;
  }
  done.store(true);
  listener.join();
  EXPECT_EQ(sink.count, by_listener + by_core);
}

} // namespace
