// The endpoints over real queues: a publisher with two subscribers waits for the slower one
// and loses nothing, drops a subscriber whose process is gone, answers only the subscriber a
// handle names, follows a restarted publisher, and hands strangers' messages to no one.

#include "back_frame.hpp"
#include "mq_test_support.hpp"

#include "support/test_sinks.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>

namespace netprof::mq {
namespace {

using namespace std::chrono_literals;
using netprof::testing::CollectingSink;
using testing::any_note_contains;
using testing::MqTest;

std::vector<std::byte> numbered(std::uint32_t number)
{
  std::vector<std::byte> message(64, std::byte{0x5a});
  store_le32(message.data(), number);
  return message;
}

class MqEndpointTest : public MqTest {
protected:
  std::unique_ptr<PublisherEndpoint> open_publisher()
  {
    return std::make_unique<PublisherEndpoint>(settings(), 0);
  }
  std::unique_ptr<SubscriberEndpoint> open_subscriber(std::uint32_t id)
  {
    return std::make_unique<SubscriberEndpoint>(settings(), id);
  }

  // The subscriber says hello and the publisher adopts it, as the core does.
  void join(PublisherEndpoint& publisher, SubscriberEndpoint& subscriber)
  {
    ASSERT_EQ(subscriber.send(numbered(0)).result, SendResult::sent);
    CollectingSink sink;
    ASSERT_EQ(publisher.receive(sink, 1s), ReceiveResult::received);
    ASSERT_EQ(sink.deliveries.size(), 1u);
    EXPECT_EQ(sink.deliveries[0].wire_bytes, 64u + frame_bytes);
    ASSERT_TRUE(netprof::testing::adopt(publisher, sink.deliveries[0].sender));
    ASSERT_TRUE(netprof::testing::read_adoption_note(subscriber));
  }

  static std::vector<std::uint32_t> drain(SubscriberEndpoint& subscriber)
  {
    CollectingSink sink;
    while (subscriber.receive(sink, 0ns) == ReceiveResult::received) {
    }
    std::vector<std::uint32_t> numbers;
    for (const auto& message : sink.messages)
      numbers.push_back(load_le32(message.data()));
    return numbers;
  }
};

TEST_F(MqEndpointTest, AFullQueueHoldsThePublisherBackAndMissesNothing)
{
  auto publisher = open_publisher();
  auto fast = open_subscriber(1);
  auto slow = open_subscriber(2);
  join(*publisher, *fast);
  join(*publisher, *slow);
  const std::uint32_t depth = static_cast<std::uint32_t>(settings().depth);
  std::vector<std::uint32_t> at_fast;
  for (std::uint32_t i = 0; i < depth; ++i)
    ASSERT_EQ(publisher->send(numbered(i)).result, SendResult::sent);
  at_fast = drain(*fast);
  // The slow queue is full: the fast one takes the next message, the slow one is owed it, and
  // nothing more goes out until it has it.
  ASSERT_EQ(publisher->send(numbered(depth)).result, SendResult::sent);
  EXPECT_EQ(publisher->send(numbered(depth + 1)).result, SendResult::back_pressured);
  for (const std::uint32_t number : drain(*fast))
    at_fast.push_back(number);
  std::vector<std::uint32_t> at_slow = drain(*slow);
  ASSERT_EQ(publisher->send(numbered(depth + 1)).result, SendResult::sent);
  for (const std::uint32_t number : drain(*fast))
    at_fast.push_back(number);
  for (const std::uint32_t number : drain(*slow))
    at_slow.push_back(number);
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i <= depth + 1; ++i)
    expected.push_back(i);
  EXPECT_EQ(at_fast, expected);
  EXPECT_EQ(at_slow, expected);
}

TEST_F(MqEndpointTest, ASubscriberWhoseProcessIsGoneIsDroppedOnceItsQueueIsFull)
{
  auto publisher = open_publisher();
  auto subscriber = open_subscriber(1);
  join(*publisher, *subscriber);
  subscriber.reset(); // its queue unlinked and unlocked; the publisher's descriptor remains
  // Its queue fills up; the send that finds it full finds no live holder either, and drops it
  // rather than push back.
  for (std::uint32_t i = 0; i <= settings().depth; ++i)
    ASSERT_EQ(publisher->send(numbered(i)).result, SendResult::sent) << "message " << i;
  EXPECT_TRUE(publisher->facts().peer_addresses.empty());
  EXPECT_TRUE(any_note_contains(publisher->facts(), "1 subscriber(s) dropped"));
}

TEST_F(MqEndpointTest, AReplyGoesToTheSubscriberItsHandleNamesOnly)
{
  auto publisher = open_publisher();
  auto first = open_subscriber(1);
  auto second = open_subscriber(2);
  constexpr auto alone = netprof::PeerFate::keep_unadopted;
  EXPECT_EQ(publisher->reply(handle_of(3), numbered(7), alone).sent.result, SendResult::failed)
      << "no queue";
  EXPECT_EQ(publisher->reply(PeerHandle{}, numbered(7), alone).sent.result, SendResult::failed);
  ASSERT_EQ(publisher->reply(handle_of(2), numbered(7), alone).sent.result, SendResult::sent);
  EXPECT_TRUE(drain(*first).empty());
  EXPECT_EQ(drain(*second), std::vector<std::uint32_t>{7});
  EXPECT_TRUE(publisher->facts().peer_addresses.empty()) << "a reply adopts no one";
}

TEST_F(MqEndpointTest, StrangersMessagesReachNoSink)
{
  auto publisher = open_publisher();
  auto subscriber = open_subscriber(1);
  const mqd_t stranger = mq_open(publisher_queue(name).c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_NE(stranger, static_cast<mqd_t>(-1));
  std::vector<char> framed(20, 0);
  write_frame(reinterpret_cast<std::byte*>(framed.data()), 1);
  ASSERT_EQ(mq_send(stranger, "abc", 3, 0), 0);          // shorter than a frame
  ASSERT_EQ(mq_send(stranger, framed.data(), 20, 9), 0); // a frame, but jumping the queue
  framed[0] = 'N';
  ASSERT_EQ(mq_send(stranger, framed.data(), 20, 0), 0); // wrong magic
  mq_close(stranger);
  CollectingSink sink;
  EXPECT_EQ(publisher->receive(sink, 0ns), ReceiveResult::timed_out);
  EXPECT_TRUE(sink.messages.empty());
  EXPECT_TRUE(any_note_contains(publisher->facts(), "3 message(s) on " + publisher_queue(name) +
                                                        " were not netprof's"));
}

TEST_F(MqEndpointTest, ASubscriberFollowsAPublisherRestartedUnderTheName)
{
  auto subscriber = open_subscriber(1);
  EXPECT_EQ(subscriber->send(numbered(1)).result, SendResult::sent) << "nobody there yet";
  auto publisher = open_publisher();
  CollectingSink sink;
  ASSERT_EQ(subscriber->send(numbered(2)).result, SendResult::sent);
  ASSERT_EQ(publisher->receive(sink, 1s), ReceiveResult::received);
  publisher.reset();
  publisher = open_publisher();
  // Within a wait the subscriber looks at the name again (every 100 ms) and finds the new one.
  EXPECT_EQ(subscriber->receive(sink, 250ms), ReceiveResult::timed_out);
  ASSERT_EQ(subscriber->send(numbered(3)).result, SendResult::sent);
  CollectingSink at_new;
  ASSERT_EQ(publisher->receive(at_new, 1s), ReceiveResult::received);
  EXPECT_EQ(load_le32(at_new.messages.at(0).data()), 3u);
  EXPECT_TRUE(any_note_contains(subscriber->facts(), "opened the publisher's queue 2 times"));
}

TEST_F(MqEndpointTest, ASubscriberRefusesAPublishersQueueOfAnotherUser)
{
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a queue to uid 65534";
  mq_attr attributes{0, 4, 256, 0, {}};
  const mqd_t fd =
      mq_open(publisher_queue(name).c_str(), O_RDONLY | O_CREAT | O_EXCL, 0600, &attributes);
  ASSERT_NE(fd, static_cast<mqd_t>(-1));
  ASSERT_EQ(fchown(fd, 65534, 65534), 0);
  mq_close(fd);
  try {
    open_subscriber(1);
    ADD_FAILURE() << "opened another user's queue";
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("belongs to another user"), std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace netprof::mq
