// The shared-memory transport beyond the contract: the segment's lifecycle (creation mode,
// stale and live owners, unlinking), subscribers that come before or after the publisher or
// die, -q and NAME handling, local-pair names. Real segments in /dev/shm, each test with its
// own name, removed by name at the end.

#include "shm_endpoint.hpp"
#include "shm_test_support.hpp"
#include "shm_transport.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace netprof {
namespace {

using testing::CollectingSink;

using namespace std::chrono_literals;
using shm::EndpointSettings;
using shm::History;
using shm::PublisherEndpoint;
using shm::SubscriberEndpoint;
using shm::testing::any_note_contains;
using shm::testing::ShmSegment;

using Bytes = std::vector<std::byte>;

Bytes bytes(std::string_view text)
{
  Bytes out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

bool exists(const std::string& path)
{
  struct stat status {};
  return stat(path.c_str(), &status) == 0;
}

bool receive_one(netprof::Endpoint& endpoint, CollectingSink& sink, Clock::duration within = 5s)
{
  const auto deadline = Clock::now() + within;
  const std::size_t before = sink.messages.size();
  while (sink.messages.size() == before && Clock::now() < deadline)
    if (endpoint.receive(sink, 10ms) == ReceiveResult::failed)
      return false;
  return sink.messages.size() > before;
}

TEST_F(ShmSegment, PublisherCreatesTheSegmentOwnerOnlyAndUnlinksItWhenClosed)
{
  {
    PublisherEndpoint sut(settings());
    struct stat status {};
    ASSERT_EQ(stat(path.c_str(), &status), 0) << path;
    EXPECT_EQ(status.st_mode & 0777, 0600u);
    EXPECT_EQ(sut.facts().local_addresses, std::vector<std::string>{path});
  }
  EXPECT_FALSE(exists(path)) << "the publisher left its segment behind";
}

TEST_F(ShmSegment, SecondPublisherOnALiveSegmentIsRefusedWithTheOwnersPid)
{
  PublisherEndpoint first(settings());
  try {
    PublisherEndpoint second(settings());
    FAIL() << "a second publisher took over a live segment";
  } catch (const netprof::TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("in use by PID " + std::to_string(getpid())),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(exists(path)) << "the refused publisher removed the live one's segment";
}

TEST_F(ShmSegment, SegmentOfADeadOwnerIsReplacedAndTheReportSaysSo)
{
  const pid_t child = netprof::shm::testing::leave_abandoned_segment(name);
  ASSERT_GT(child, 0);
  ASSERT_TRUE(exists(path));

  PublisherEndpoint sut(settings());
  EXPECT_TRUE(any_note_contains(sut.facts(),
                                "replaced a stale segment left by PID " + std::to_string(child)));
}

TEST_F(ShmSegment, GarbageUnderTheNameIsReplaced)
{
  const int fd = shm_open(netprof::shm::object_name(name).c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  ASSERT_EQ(write(fd, "not a netprof segment", 21), 21);
  close(fd);

  PublisherEndpoint sut(settings());
  EXPECT_TRUE(any_note_contains(sut.facts(), "replaced an invalid segment"));
}

TEST_F(ShmSegment, SubscriberStartedFirstAttachesWhenThePublisherComes)
{
  SubscriberEndpoint subscriber(settings(), 1);
  EXPECT_TRUE(any_note_contains(subscriber.facts(), "did not exist yet"));
  CollectingSink sink;
  EXPECT_EQ(subscriber.receive(sink, 0ns), ReceiveResult::timed_out);
  const auto start = Clock::now();
  EXPECT_EQ(subscriber.receive(sink, 30ms), ReceiveResult::timed_out);
  EXPECT_GE(Clock::now() - start, 30ms);
  EXPECT_EQ(subscriber.send(bytes("lost hello")).result, SendResult::sent)
      << "nowhere to go is not an error";

  PublisherEndpoint publisher(settings());
  ASSERT_EQ(subscriber.send(bytes("hello")).result, SendResult::sent);
  CollectingSink at_publisher;
  ASSERT_TRUE(receive_one(publisher, at_publisher));
  EXPECT_EQ(at_publisher.messages.front(), bytes("hello"));

  ASSERT_EQ(publisher.send(bytes("data")).result, SendResult::sent);
  ASSERT_TRUE(receive_one(subscriber, sink));
  EXPECT_EQ(sink.messages.front(), bytes("data"));
}

TEST_F(ShmSegment, SubscriberJoiningLateSeesOnlyWhatFollows)
{
  PublisherEndpoint publisher(settings());
  ASSERT_EQ(publisher.send(bytes("before")).result, SendResult::sent);
  SubscriberEndpoint subscriber(settings(), 1);
  ASSERT_EQ(publisher.send(bytes("after")).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_TRUE(receive_one(subscriber, sink));
  EXPECT_EQ(sink.messages.front(), bytes("after"));
  EXPECT_EQ(subscriber.receive(sink, 0ns), ReceiveResult::timed_out);
}

TEST_F(ShmSegment, ThreeSubscribersEachGetEveryMessageAndTheirOwnEchoPath)
{
  PublisherEndpoint publisher(settings(History::keep_all));
  std::vector<std::unique_ptr<SubscriberEndpoint>> subscribers;
  for (std::uint32_t id = 1; id <= 3; ++id)
    subscribers.push_back(std::make_unique<SubscriberEndpoint>(settings(), id));
  ASSERT_EQ(publisher.send(bytes("to all")).result, SendResult::sent);
  CollectingSink at_publisher;
  for (auto& subscriber : subscribers) {
    CollectingSink sink;
    ASSERT_TRUE(receive_one(*subscriber, sink));
    EXPECT_EQ(sink.messages.front(), bytes("to all"));
    EXPECT_NE(subscriber->facts().local_addresses.front().find(" slot "), std::string::npos);
    ASSERT_EQ(subscriber->send(bytes("echo")).result, SendResult::sent);
    ASSERT_TRUE(receive_one(publisher, at_publisher));
  }
  EXPECT_EQ(at_publisher.messages.size(), 3u);
}

TEST_F(ShmSegment, SubscriberThatLeavesFreesItsSlot)
{
  PublisherEndpoint publisher(settings(History::keep_all, 4096));
  {
    SubscriberEndpoint subscriber(settings(), 1);
    ASSERT_EQ(subscriber.send(bytes("hi")).result, SendResult::sent);
  }
  // With the only reader gone, keep-all has nobody to wait for.
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(publisher.send(Bytes(100)).result, SendResult::sent) << i;
}

TEST_F(ShmSegment, KeepAllPublisherDropsASubscriberWhoseProcessDied)
{
  PublisherEndpoint publisher(settings(History::keep_all, 4096));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Attaches, then dies without leaving: its cursor stays behind, holding the writer back.
    new SubscriberEndpoint(settings(), 7);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);

  const auto deadline = Clock::now() + 5s;
  int pushed_back = 0;
  for (int sent = 0; sent < 200 && Clock::now() < deadline;) {
    const netprof::SendOutcome outcome = publisher.send(Bytes(100));
    ASSERT_NE(outcome.result, SendResult::failed);
    if (outcome.sent()) {
      ++sent;
    } else {
      ++pushed_back;
      EXPECT_EQ(outcome.cause, netprof::SendCause::ring_full);
    }
  }
  EXPECT_GT(pushed_back, 0) << "the dead subscriber never held the writer back";
  EXPECT_LT(Clock::now(), deadline) << "the writer waited for a dead subscriber";
  EXPECT_TRUE(any_note_contains(publisher.facts(), "dropped 1 subscriber"));
}

TEST_F(ShmSegment, SubscriberFollowsAReplacedPublisher)
{
  SubscriberEndpoint subscriber(settings(), 1);
  CollectingSink sink;
  {
    // The subscriber attaches at the writer's tail on its next call; what was sent before
    // that is not its to read, so keep sending until one arrives.
    PublisherEndpoint first(settings());
    const auto deadline = Clock::now() + 5s;
    while (Clock::now() < deadline && sink.messages.empty()) {
      ASSERT_EQ(first.send(bytes("first")).result, SendResult::sent);
      ASSERT_NE(subscriber.receive(sink, 10ms), ReceiveResult::failed);
    }
    ASSERT_FALSE(sink.messages.empty());
    sink.messages.resize(1);
  }
  PublisherEndpoint second(settings());
  const auto deadline = Clock::now() + 5s;
  while (Clock::now() < deadline && sink.messages.size() < 2) {
    ASSERT_EQ(second.send(bytes("second")).result, SendResult::sent);
    ASSERT_NE(subscriber.receive(sink, 20ms), ReceiveResult::failed);
  }
  ASSERT_GE(sink.messages.size(), 2u) << "the subscriber never found the new segment";
  EXPECT_EQ(sink.messages[1], bytes("second"));
}

TEST_F(ShmSegment, BlockingReceiveWakesOnASendFromAnotherThread)
{
  PublisherEndpoint publisher(settings());
  SubscriberEndpoint subscriber(settings(), 1);
  CollectingSink sink;
  std::thread sender([&] {
    std::this_thread::sleep_for(50ms);
    publisher.send(bytes("wake"));
    publisher.flush();
  });
  const auto start = Clock::now();
  const ReceiveResult result = subscriber.receive(sink, 10s);
  const auto elapsed = Clock::now() - start;
  sender.join();
  EXPECT_EQ(result, ReceiveResult::received);
  EXPECT_LT(elapsed, 5s);
}

TEST_F(ShmSegment, SubscriberReportsTheRecordAsWireBytes)
{
  PublisherEndpoint publisher(settings());
  SubscriberEndpoint subscriber(settings(), 1);
  ASSERT_EQ(publisher.send(Bytes(100)).result, SendResult::sent);
  CollectingSink sink;
  ASSERT_EQ(subscriber.receive(sink, 1s), ReceiveResult::received);
  ASSERT_EQ(sink.deliveries.size(), 1u);
  EXPECT_EQ(sink.deliveries.front().wire_bytes, 128u) << "8 B header + 100 B, padded to 64";
  EXPECT_EQ(sink.deliveries.front().datagrams, 1u);
  EXPECT_TRUE(sink.deliveries.front().sender.none()) << "the ring names no sender";
}

TEST(ShmOptions, QueueLengthBecomesAPowerOfTwoRing)
{
  std::vector<std::string> notes;
  EXPECT_EQ(netprof::shm::ring_capacity_for(0, notes), std::size_t{1} << 20);
  EXPECT_EQ(netprof::shm::ring_capacity_for(1'000'000, notes), std::size_t{1} << 20);
  EXPECT_EQ(netprof::shm::ring_capacity_for(std::size_t{1} << 25, notes), std::size_t{1} << 25);
  EXPECT_EQ(netprof::shm::ring_capacity_for(100, notes), 4096u);
  EXPECT_NE(notes.back().find("rounded up"), std::string::npos);
  EXPECT_THROW(netprof::shm::ring_capacity_for((std::size_t{1} << 30) + 1, notes),
               netprof::UsageError);
}

TEST(ShmOptions, SegmentNamesAreCheckedCharacterByCharacter)
{
  EXPECT_NO_THROW(netprof::shm::check_segment_name("run-1.a_b"));
  for (const char* bad : {"", "a/b", ".hidden", "white space", "x\n"})
    EXPECT_THROW(netprof::shm::check_segment_name(bad), netprof::UsageError) << bad;
  EXPECT_THROW(netprof::shm::check_segment_name(std::string(201, 'a')), netprof::UsageError);
}

// A publisher killed outright stays a zombie until its parent reaps it; its segment is
// abandoned from the moment it died, not from the reaping.
TEST(ShmProcessAlive, AProcessThatExitedIsDeadBeforeItsParentReapsIt)
{
  EXPECT_TRUE(netprof::shm::process_alive(getpid()));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(0);
  siginfo_t info{};
  // Waits for the exit but leaves the child unreaped: a zombie.
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  EXPECT_FALSE(netprof::shm::process_alive(child));
  EXPECT_TRUE(netprof::shm::process_exists(child)); // what a bare kill(pid, 0) says
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(netprof::shm::process_alive(child));
  EXPECT_FALSE(netprof::shm::process_exists(child));
}

} // namespace
} // namespace netprof
