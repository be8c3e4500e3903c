// The shared-memory endpoints against what another process may leave or do under a segment's
// name: a FIFO, another user's segment, a segment truncated while in use, and the local pair's
// clean-up meeting such files. Real files in /dev/shm, each test with its own name, removed at
// the end.

#include "segment.hpp"
#include "shm_endpoint.hpp"
#include "shm_test_support.hpp"

#include <netprof/errors.hpp>

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace netprof {
namespace {

using namespace std::chrono_literals;
using shm::EndpointSettings;
using shm::PublisherEndpoint;
using shm::SubscriberEndpoint;
using shm::testing::any_note_contains;
using testing::CollectingSink;

constexpr uid_t nobody = 65534;

std::string refusal_of(const std::function<void()>& open)
{
  try {
    open();
  } catch (const TransportError& error) {
    return error.what();
  }
  return "";
}

// Each test's segment name is its own; whatever a test left under it is removed at the end.
using HostileSegment = netprof::shm::testing::ShmSegment;

TEST_F(HostileSegment, PublisherRefusesAFifoUnderItsNameAtOnce)
{
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const auto start = Clock::now();
  const std::string why = refusal_of([&] { PublisherEndpoint sut(settings()); });
  EXPECT_NE(why.find(path + " is a FIFO"), std::string::npos) << why;
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST_F(HostileSegment, SubscriberRefusesAFifoThereFromTheStart)
{
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const std::string why = refusal_of([&] { SubscriberEndpoint sut(settings(), 1); });
  EXPECT_NE(why.find(path + " is a FIFO"), std::string::npos) << why;
}

TEST_F(HostileSegment, SubscriberGivesUpOnAFifoThatAppearsWhileItWaits)
{
  SubscriberEndpoint sut(settings(), 1);
  CollectingSink sink;
  ASSERT_EQ(sut.receive(sink, 0ns), ReceiveResult::timed_out);
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(sut.receive(sink, 50ms), ReceiveResult::failed);
  EXPECT_EQ(sut.send(std::vector<std::byte>(8)).result, SendResult::failed);
  EXPECT_TRUE(any_note_contains(sut.facts(), "gave up: " + path + " is a FIFO"));
}

TEST_F(HostileSegment, ForeignSegmentIsRefusedByTheSubscriberUnlessItsOwnerIsAllowed)
{
  if (geteuid() == nobody)
    GTEST_SKIP() << "runs as uid 65534 itself";
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root, to give the segment to uid 65534";
  PublisherEndpoint publisher(settings());
  ASSERT_EQ(chown(path.c_str(), nobody, nobody), 0);

  const std::string why = refusal_of([&] { SubscriberEndpoint sut(settings(), 1); });
  EXPECT_NE(why.find(path + " belongs to another user"), std::string::npos) << why;
  EXPECT_NE(why.find("uid 65534"), std::string::npos) << why;

  EndpointSettings allowing = settings();
  allowing.owners.also_trusted = nobody;
  SubscriberEndpoint sut(std::move(allowing), 1);
  ASSERT_EQ(publisher.send(std::vector<std::byte>(8)).result, SendResult::sent);
  CollectingSink sink;
  EXPECT_EQ(sut.receive(sink, 1s), ReceiveResult::received);
}

TEST_F(HostileSegment, ForeignSegmentNamingALiveProcessIsRefusedByThePublisherByItsOwner)
{
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root, to give the segment to uid 65534";
  // A real segment (its header names this live process), given away.
  PublisherEndpoint squatter(settings());
  ASSERT_EQ(chown(path.c_str(), nobody, nobody), 0);
  const std::string why = refusal_of([&] { PublisherEndpoint sut(settings()); });
  EXPECT_NE(why.find(path + " belongs to another user"), std::string::npos) << why;
  EXPECT_EQ(why.find("in use by PID"), std::string::npos) << why;
  struct stat info {};
  EXPECT_EQ(stat(path.c_str(), &info), 0) << "the refused publisher removed it";
}

TEST_F(HostileSegment, BothEndsFailOnceTheSegmentIsTruncatedUnderThem)
{
  PublisherEndpoint publisher(settings());
  SubscriberEndpoint subscriber(settings(), 1);
  CollectingSink at_subscriber;
  CollectingSink at_publisher;
  ASSERT_EQ(publisher.send(std::vector<std::byte>(8)).result, SendResult::sent);
  ASSERT_EQ(subscriber.receive(at_subscriber, 1s), ReceiveResult::received);

  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 0), 0);
  close(fd);

  // Each end faults at its next access of the ring (the ring's pages are gone) and fails at
  // its next idle poll; none of it may raise SIGBUS past the endpoint.
  for (int i = 0; i < 4; ++i)
    publisher.send(std::vector<std::byte>(8));
  EXPECT_EQ(publisher.receive(at_publisher, 0ns), ReceiveResult::failed);
  EXPECT_EQ(subscriber.receive(at_subscriber, 10ms), ReceiveResult::failed);
  EXPECT_TRUE(any_note_contains(publisher.facts(), "was truncated while in use"));
  EXPECT_TRUE(any_note_contains(subscriber.facts(), "was truncated while in use"));
}

TEST_F(HostileSegment, LocalPairCleanUpPassesOverAFifo)
{
  const std::string prefix = "pair-hostile-" + std::to_string(getpid()) + "-";
  const std::string fifo = netprof::shm::object_path(prefix + "fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto removed = netprof::shm::remove_abandoned_segments(prefix);
  struct stat info {};
  EXPECT_EQ(lstat(fifo.c_str(), &info), 0) << "a FIFO is nobody's pair: left alone";
  unlink(fifo.c_str());
  EXPECT_TRUE(removed.empty());
}

TEST_F(HostileSegment, LocalPairCleanUpLeavesAnotherUsersAbandonedSegmentAlone)
{
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root, to give the segment to uid 65534";
  const std::string prefix = "pair-hostile-" + std::to_string(getpid()) + "-";
  const std::string abandoned = prefix + "dead";
  ASSERT_GT(netprof::shm::testing::leave_abandoned_segment(abandoned), 0);
  const std::string file = netprof::shm::object_path(abandoned);
  ASSERT_EQ(chown(file.c_str(), nobody, nobody), 0);
  const auto removed = netprof::shm::remove_abandoned_segments(prefix);
  struct stat info {};
  EXPECT_EQ(stat(file.c_str(), &info), 0) << "another user's segment was removed";
  unlink(file.c_str());
  EXPECT_TRUE(removed.empty());
}

} // namespace
} // namespace netprof
