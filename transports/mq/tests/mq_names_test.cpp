// Names, the back channel's frame and the kernel's limits, without a queue.

#include "back_frame.hpp"
#include "kernel_limits.hpp"
#include "queue_names.hpp"

#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <string>
#include <vector>

namespace netprof::mq {
namespace {

TEST(RunName, PlainNamesAreTakenAndTheRestRefusedNamingBothQueues)
{
  for (const std::string& good :
       std::vector<std::string>{"a", "demo-1", "x.y_z", std::string(200, 'n')})
    EXPECT_NO_THROW(check_run_name(good)) << good;
  for (const std::string& bad :
       std::vector<std::string>{"", ".hidden", "a:1", "a/b", "a b", std::string(201, 'n')}) {
    try {
      check_run_name(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()),
                "bad --mq value '" + bad +
                    "': expected a name of 1 to 200 letters, digits, '.', '_' or '-' (not "
                    "starting with '.'); the queues are /netprof-NAME and /netprof-NAME:ID");
    }
  }
}

TEST(RunName, QueuesOfARunAreNamedAfterItAndTheFixedBufferAgrees)
{
  EXPECT_EQ(publisher_queue("demo"), "/netprof-demo");
  EXPECT_EQ(subscriber_queue("demo", 7), "/netprof-demo:7");
  EXPECT_EQ(subscriber_queue_prefix("demo"), "netprof-demo:");
  SubscriberQueueName sut(std::string(200, 'n'));
  for (const std::uint32_t id : {1u, 65535u, 4294967295u})
    EXPECT_EQ(std::string(sut.for_id(id)), subscriber_queue(std::string(200, 'n'), id));
}

TEST(BackFrame, NamesItsSenderAndRefusesWhatIsNotAFrame)
{
  std::array<std::byte, 12> frame{};
  write_frame(frame.data(), 65535);
  EXPECT_EQ(frame_sender(frame), 65535u);
  EXPECT_EQ(frame_sender(std::span(frame).first(7)), 0u) << "shorter than a frame";
  write_frame(frame.data(), 0);
  EXPECT_EQ(frame_sender(frame), 0u) << "no subscriber has id 0";
  write_frame(frame.data(), 3);
  frame[0] = std::byte{'N'};
  EXPECT_EQ(frame_sender(frame), 0u) << "wrong magic";
}

TEST(BackFrame, HandlesNameSubscribersAndNothingElse)
{
  EXPECT_FALSE(handle_of(1).none());
  EXPECT_EQ(sender_of(handle_of(42)), 42u);
  EXPECT_EQ(sender_of(PeerHandle{}), std::nullopt);
  EXPECT_EQ(sender_of(PeerHandle{handle_tag}), std::nullopt) << "id 0";
  EXPECT_EQ(sender_of(PeerHandle{(std::uint64_t{1} << 48) | 5}), std::nullopt) << "a UDP handle";
}

KernelLimits unprivileged(std::size_t msg_max)
{
  KernelLimits limits;
  limits.msg_max = msg_max;
  limits.queue_bytes = 819200;
  return limits;
}

TEST(Depth, AGivenDepthBeyondMsgMaxIsRefusedNamingTheSysctl)
{
  std::string note;
  EXPECT_EQ(choose_depth(10, unprivileged(10), note), 10u);
  try {
    choose_depth(11, unprivileged(10), note);
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--mq-depth 11 is deeper than the kernel allows this process: fs.mqueue.msg_max is "
              "10 without CAP_SYS_RESOURCE (raise it with sysctl -w fs.mqueue.msg_max=11, or "
              "give --mq-depth 10 or less)");
  }
  KernelLimits privileged = unprivileged(10);
  privileged.privileged = true;
  EXPECT_EQ(choose_depth(65536, privileged, note), 65536u);
}

TEST(Depth, TheDefaultIsLoweredToMsgMaxAndSaysSo)
{
  std::string note;
  EXPECT_EQ(choose_depth(std::nullopt, unprivileged(4), note), 4u);
  EXPECT_NE(note.find("the default 10 lowered to fs.mqueue.msg_max"), std::string::npos) << note;
  EXPECT_EQ(choose_depth(std::nullopt, unprivileged(100), note), 10u);
}

TEST(Depth, EachRefusalOfTheKernelNamesItsLimit)
{
  const KernelLimits limits = unprivileged(10);
  const auto refusal = [&](int error) {
    return creation_refusal("/netprof-x", error, 10, 8192, limits);
  };
  EXPECT_NE(refusal(EINVAL).find("fs.mqueue.msg_max (10)"), std::string::npos);
  EXPECT_NE(refusal(EMFILE).find("about " + std::to_string(accounted_bytes(10, 8192)) +
                                 " B of RLIMIT_MSGQUEUE (ulimit -q, 819200 B)"),
            std::string::npos)
      << refusal(EMFILE);
  EXPECT_NE(refusal(ENOSPC).find("fs.mqueue.queues_max (256)"), std::string::npos);
  EXPECT_GT(accounted_bytes(10, 8192), 10u * 8192);
}

} // namespace
} // namespace netprof::mq
