// Real queues: created owner-only, held while their process lives, replaced when a killed
// process left them, refused when a live process or another user holds the name, and found
// again through their markers by the clean-up of killed runs.

#include "mq_test_support.hpp"
#include "owned_queue.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <string>

namespace netprof::mq {
namespace {

using testing::MqTest;
using testing::queue_exists;

QueuePlan plan(const std::string& queue)
{
  return {queue, 4, 128, "HINT"};
}

// What a process killed outright leaves: its queue and marker, and no lock.
bool leave_abandoned(const std::string& queue)
{
  const pid_t child = fork();
  if (child == 0) {
    try {
      new OwnedQueue(plan(queue), KernelLimits::read()); // never destroyed
      _exit(0);
    } catch (...) {
      _exit(1);
    }
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

std::string refusal_of(const QueuePlan& plan, const KernelLimits& limits)
{
  try {
    OwnedQueue sut(plan, limits);
  } catch (const TransportError& error) {
    return error.what();
  }
  return "(created)";
}

TEST_F(MqTest, AQueueIsTheOwnersAloneWhateverTheUmaskAndGoesWithItsOwner)
{
  const std::string queue = publisher_queue(name);
  const mode_t old_mask = umask(0277);
  {
    OwnedQueue sut(plan(queue), KernelLimits::read());
    umask(old_mask);
    struct stat info {};
    ASSERT_EQ(fstat(sut.polling_fd(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0600u);
    EXPECT_FALSE(sut.replaced());
    EXPECT_TRUE(sut.marked());
    EXPECT_EQ(access(marker_path(queue).c_str(), F_OK), 0) << "no marker";
  }
  umask(old_mask);
  EXPECT_FALSE(queue_exists(queue));
  EXPECT_NE(access(marker_path(queue).c_str(), F_OK), 0) << "the marker was left behind";
}

TEST_F(MqTest, AQueueAKilledProcessLeftIsReplaced)
{
  const std::string queue = publisher_queue(name);
  ASSERT_TRUE(leave_abandoned(queue));
  ASSERT_TRUE(queue_exists(queue));
  OwnedQueue sut(plan(queue), KernelLimits::read());
  EXPECT_TRUE(sut.replaced());
}

TEST_F(MqTest, AQueueALiveProcessHoldsIsRefusedWithTheHint)
{
  const std::string queue = publisher_queue(name);
  OwnedQueue holder(plan(queue), KernelLimits::read());
  EXPECT_EQ(refusal_of(plan(queue), KernelLimits::read()),
            "message queue " + queue + " is in use by a live process: HINT");
  EXPECT_TRUE(queue_exists(queue));
}

TEST_F(MqTest, AnotherUsersQueueIsRefusedNamingItsOwnerAndLeftInPlace)
{
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a queue to uid 65534";
  const std::string queue = publisher_queue(name);
  mq_attr attributes{0, 4, 128, 0, {}};
  const mqd_t fd = mq_open(queue.c_str(), O_RDONLY | O_CREAT | O_EXCL, 0600, &attributes);
  ASSERT_NE(fd, static_cast<mqd_t>(-1));
  ASSERT_EQ(fchown(fd, 65534, 65534), 0);
  mq_close(fd);
  const std::string refusal = refusal_of(plan(queue), KernelLimits::read());
  EXPECT_EQ(refusal.rfind("message queue " + queue + " belongs to another user, ", 0), 0u)
      << refusal;
  EXPECT_NE(refusal.find("(uid 65534)"), std::string::npos) << refusal;
  EXPECT_TRUE(queue_exists(queue));
}

TEST_F(MqTest, ADepthBeyondMsgMaxIsRefusedByTheKernelNamingIt)
{
  const KernelLimits limits = KernelLimits::read();
  if (limits.privileged)
    GTEST_SKIP() << "CAP_SYS_RESOURCE lifts fs.mqueue.msg_max";
  const std::string refusal =
      refusal_of({publisher_queue(name), limits.msg_max + 1, 128, ""}, limits);
  EXPECT_NE(refusal.find("a queue may hold at most fs.mqueue.msg_max"), std::string::npos)
      << refusal;
}

TEST_F(MqTest, AQueueBeyondRlimitMsgqueueIsRefusedNamingIt)
{
  const std::string queue = publisher_queue(name);
  const pid_t child = fork();
  if (child == 0) {
    const rlimit tiny{100, 100};
    setrlimit(RLIMIT_MSGQUEUE, &tiny);
    const std::string refusal = refusal_of(plan(queue), KernelLimits::read());
    _exit(refusal.find("RLIMIT_MSGQUEUE (ulimit -q, 100 B)") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(MqTest, CleanUpRemovesAbandonedQueuesAndKeepsHeldOnes)
{
  const std::string abandoned = subscriber_queue(name, 1);
  const std::string held = subscriber_queue(name, 2);
  ASSERT_TRUE(leave_abandoned(abandoned));
  OwnedQueue holder(plan(held), KernelLimits::read());
  EXPECT_EQ(remove_abandoned_queues(subscriber_queue_prefix(name)),
            std::vector<std::string>{abandoned});
  EXPECT_FALSE(queue_exists(abandoned));
  EXPECT_NE(access(marker_path(abandoned).c_str(), F_OK), 0);
  EXPECT_TRUE(queue_exists(held));
  EXPECT_EQ(access(marker_path(held).c_str(), F_OK), 0);
}

TEST_F(MqTest, CleanUpPassesOverMarkersThatAreNotOurFilesAndDropsThoseWithoutAQueue)
{
  const std::string fifo = subscriber_queue(name, 1);
  const std::string orphan = subscriber_queue(name, 2);
  ASSERT_EQ(mkfifo(marker_path(fifo).c_str(), 0600), 0);
  ASSERT_TRUE(mark(orphan));
  EXPECT_TRUE(remove_abandoned_queues(subscriber_queue_prefix(name)).empty());
  struct stat info {};
  EXPECT_EQ(lstat(marker_path(fifo).c_str(), &info), 0) << "a FIFO is not netprof's to remove";
  EXPECT_NE(access(marker_path(orphan).c_str(), F_OK), 0) << "a marker whose queue is gone";
}

} // namespace
} // namespace netprof::mq
