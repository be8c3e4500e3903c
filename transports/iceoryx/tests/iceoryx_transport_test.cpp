#include "iox_qos.hpp"
#include "iox_transport.hpp"
#include "roudi.hpp"

#include <netprof/errors.hpp>

#include "support/transport_options.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

using netprof::iox_parts::describe;
using netprof::iox_parts::Qos;
using netprof::iox_parts::queue_capacity_for;
using netprof::iox_parts::QueueFull;

constexpr std::uint64_t most = 256;

TEST(IceoryxQueueCapacity, ZeroGivesIceoryxsLargestQueue)
{
  EXPECT_EQ(queue_capacity_for(0, 180, most), most);
}

TEST(IceoryxQueueCapacity, BytesBecomeWholeMessagesRoundedUp)
{
  EXPECT_EQ(queue_capacity_for(1800, 180, most), 10u);
  EXPECT_EQ(queue_capacity_for(1801, 180, most), 11u);
}

TEST(IceoryxQueueCapacity, StaysWithinOneAndIceoryxsLimit)
{
  EXPECT_EQ(queue_capacity_for(1, 1 << 20, most), 1u);
  EXPECT_EQ(queue_capacity_for(std::size_t{1} << 30, 180, most), most);
  EXPECT_EQ(queue_capacity_for(100, 0, most), 100u) << "a zero message size must not divide";
}

TEST(IceoryxQos, TheNoteNamesQueuePolicyAndHistory)
{
  Qos qos;
  qos.queue_capacity = 12;
  qos.back_channel_history = 16;
  const std::string discard = describe(qos);
  EXPECT_NE(discard.find("queue of 12 messages"), std::string::npos) << discard;
  EXPECT_NE(discard.find("DISCARD_OLDEST_DATA"), std::string::npos) << discard;
  EXPECT_NE(discard.find("history request 0"), std::string::npos) << discard;
  qos.queue_full = QueueFull::block;
  const std::string block = describe(qos);
  EXPECT_NE(block.find("--iox-queue-full block"), std::string::npos) << block;
  EXPECT_NE(block.find("WAIT_FOR_CONSUMER"), std::string::npos) << block;
}

TEST(IceoryxTransport, RefusesNamesIceoryxCannotHold)
{
  for (const std::string& bad :
       {std::string(101, 'a'), std::string(".hidden"), std::string("a/b")}) {
    auto transport = netprof::testing::planned(netprof::iceoryx_transport(), {"--iceoryx", bad});
    EXPECT_THROW(transport->plan_for(netprof::Role::publisher), netprof::UsageError) << bad;
  }
  auto transport =
      netprof::testing::planned(netprof::iceoryx_transport(), {"--iceoryx", std::string(100, 'a')});
  EXPECT_NO_THROW(transport->plan_for(netprof::Role::publisher));
}

TEST(IceoryxTransport, LocalPairGivesEveryProcessTheSameFreshName)
{
  auto transport = netprof::testing::planned(netprof::iceoryx_transport(), {"--iceoryx"});
  const auto first = transport->pair_plan(2);
  const auto second = transport->pair_plan(2);
  ASSERT_EQ(first.publisher.size(), 2u);
  EXPECT_EQ(first.subscribers.at(0), first.publisher);
  EXPECT_EQ(first.subscribers.at(1), first.publisher);
  EXPECT_NE(first.publisher, second.publisher) << "a straggler of an earlier pair could be heard";
}

// What netprof asks before it lets iceoryx wait for RouDi: is anyone bound to the socket?
class SocketAnswers : public ::testing::Test {
protected:
  void SetUp() override
  {
    char pattern[] = "/tmp/netprof-iox-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    m_directory = pattern;
    m_path = m_directory + "/roudi";
  }
  void TearDown() override
  {
    if (m_bound >= 0)
      close(m_bound);
    std::remove(m_path.c_str());
    rmdir(m_directory.c_str());
  }

  void bind_socket()
  {
    m_bound = socket(AF_UNIX, SOCK_DGRAM, 0);
    ASSERT_GE(m_bound, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, m_path.c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(bind(m_bound, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  }

  std::string m_directory;
  std::string m_path;
  int m_bound = -1;
};

TEST_F(SocketAnswers, ABoundSocketAnswers)
{
  bind_socket();
  std::string why;
  EXPECT_TRUE(netprof::iox_parts::socket_answers(m_path, why)) << why;
}

TEST_F(SocketAnswers, TheFileOfAKilledRoudiDoesNot)
{
  bind_socket();
  close(m_bound); // the file stays, nobody is bound: what a RouDi killed outright leaves
  m_bound = -1;
  std::string why;
  EXPECT_FALSE(netprof::iox_parts::socket_answers(m_path, why));
  EXPECT_NE(why.find(m_path), std::string::npos) << why;
  EXPECT_NE(why.find("refused"), std::string::npos) << why;
}

TEST_F(SocketAnswers, NoFileOrAPlainFileDoesNot)
{
  std::string why;
  EXPECT_FALSE(netprof::iox_parts::socket_answers(m_path, why));
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  std::ofstream(m_path) << "not a socket";
  EXPECT_FALSE(netprof::iox_parts::socket_answers(m_path, why));
}

} // namespace
