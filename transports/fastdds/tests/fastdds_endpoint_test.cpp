// FastDdsEndpoint on loopback: the loopback profile keeps to 127.0.0.1 without shared memory or
// multicast, a subscriber holds its hello until matched, and a peer whose reliability DDS will
// not match is named on both sides (those two as for dds, in
// tests/support/dds_family_endpoint_checks.hpp). --fastdds-history is parsed by the code that
// parses --dds-history (common/dds_qos_choice.hpp), tested in dds_transport_test.cpp, and its
// name in test_fastdds.py. No timing assertions: every wait is bounded by a deadline only so
// nothing hangs.

#include "fastdds_endpoint.hpp"

#include "support/dds_family_endpoint_checks.hpp"

#include <gtest/gtest.h>

#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>

#include <string>

namespace netprof {
namespace {

using fastdds_parts::FastDdsEndpoint;

TEST(FastDdsLoopback, UsesUdpOn127001AloneWithUnicastDiscovery)
{
  const auto qos = fastdds_parts::loopback_participant_qos();
  EXPECT_FALSE(qos.transport().use_builtin_transports) << "no shared memory, no other interface";
  ASSERT_EQ(qos.transport().user_transports.size(), 1u);
  const auto* udp = dynamic_cast<const eprosima::fastdds::rtps::UDPv4TransportDescriptor*>(
      qos.transport().user_transports.front().get());
  ASSERT_NE(udp, nullptr);
  EXPECT_EQ(udp->interfaceWhiteList, std::vector<std::string>{"127.0.0.1"});
  const auto& builtin = qos.wire_protocol().builtin;
  EXPECT_FALSE(builtin.initialPeersList.empty());
  EXPECT_TRUE(builtin.metatrafficMulticastLocatorList.empty());
  EXPECT_FALSE(builtin.metatrafficUnicastLocatorList.empty()) << "so no multicast is added";
}

TEST(FastDdsQos, AReliableSubscriberAgainstABestEffortPublisherIsNamedOnBothSides)
{
  dds_family_testing::expect_reliability_mismatch_named_on_both_sides<FastDdsEndpoint>(
      "--fastdds-reliability");
}

TEST(FastDdsDiscovery, ASubscriberHoldsItsHelloUntilMatchedAndItArrives)
{
  // Unlike dds's, the publisher's discovery may still be incomplete once the hello came: Fast
  // DDS matches each direction apart (FastDdsEndpoint::ready_to_send).
  dds_family_testing::expect_hello_held_until_matched<FastDdsEndpoint>(
      [](const FastDdsEndpoint&) {});
}

TEST(FastDdsListener, WakesTheWaitingCoreOnlyWhenItsSinkAsks)
{
  dds_family_testing::expect_listener_wakes_only_when_asked<FastDdsEndpoint>(false);
  dds_family_testing::expect_listener_wakes_only_when_asked<FastDdsEndpoint>(true);
}

} // namespace
} // namespace netprof
