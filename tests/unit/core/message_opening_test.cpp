// The one opening both roles make of a received message: what is read, what is refused and
// counted, and what a subscriber passes over without counting. No endpoint, no sockets.

#include "core/protocol/message_opening.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <span>

namespace {

using namespace netprof;

const std::array<std::byte, 4> secret{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};

wire::Header control_from(std::uint32_t sender)
{
  wire::Header header;
  header.kind = wire::MessageKind::hello;
  header.sender_id = sender;
  return header;
}

TEST(MessageOpening, ASealedControlMessageOpensWithoutItsMac)
{
  const ControlAuthentication keyed(secret);
  const MessageOpener sut(keyed, MessageOpener::Reader::publisher);
  OutgoingMessage out(keyed.tag_room());
  const auto sealed = keyed.seal(out, control_from(3));

  OpenedMessage opened;
  ASSERT_EQ(sut.open(sealed, opened), Opening::readable);
  EXPECT_EQ(opened.header.sender_id, 3u);
  EXPECT_EQ(opened.bytes.size(), wire::header_size);
}

TEST(MessageOpening, AControlMessageWithoutAValidMacIsRefusedAsUnauthenticated)
{
  const ControlAuthentication keyed(secret);
  const ControlAuthentication keyless({});
  OutgoingMessage out(0);
  const auto bare = keyless.seal(out, control_from(3));

  OpenedMessage opened;
  const Opening opening = MessageOpener(keyed, MessageOpener::Reader::publisher).open(bare, opened);
  EXPECT_EQ(opening, Opening::unauthenticated);
  Refusals refused;
  refused.count(opening);
  EXPECT_EQ(refused.rejected, 1u);
  EXPECT_EQ(refused.unauthenticated, 1u);
}

TEST(MessageOpening, BytesThatAreNoMessageOfOursAreRefusedAsUndecodable)
{
  const ControlAuthentication keyless({});
  const std::array<std::byte, 3> garbage{};
  OpenedMessage opened;
  const Opening opening =
      MessageOpener(keyless, MessageOpener::Reader::subscriber).open(garbage, opened);
  EXPECT_EQ(opening, Opening::undecodable);
  Refusals refused;
  refused.count(opening);
  EXPECT_EQ(refused.rejected, 1u);
  EXPECT_EQ(refused.unauthenticated, 0u);
}

TEST(MessageOpening, ASubscriberPassesOverAnotherSubscribersMessageWhateverItsKey)
{
  // Another subscriber on a shared medium, with a key this one lacks: not its business, so
  // neither read nor refused. A publisher reading the same bytes refuses them.
  const ControlAuthentication keyed(secret);
  const ControlAuthentication keyless({});
  OutgoingMessage out(keyed.tag_room());
  const auto sealed = keyed.seal(out, control_from(7));

  OpenedMessage opened;
  const Opening at_subscriber =
      MessageOpener(keyless, MessageOpener::Reader::subscriber).open(sealed, opened);
  EXPECT_EQ(at_subscriber, Opening::passed_over);
  Refusals refused;
  refused.count(at_subscriber);
  EXPECT_EQ(refused.rejected, 0u);

  EXPECT_EQ(MessageOpener(keyless, MessageOpener::Reader::publisher).open(sealed, opened),
            Opening::unauthenticated);
}

TEST(MessageOpening, DataFromThePublisherIsReadWithoutAMacUnderAKey)
{
  const ControlAuthentication keyed(secret);
  wire::Header header;
  header.kind = wire::MessageKind::data;
  OutgoingMessage out(8);
  const auto data = out.with_header(header);

  OpenedMessage opened;
  ASSERT_EQ(MessageOpener(keyed, MessageOpener::Reader::subscriber).open(data, opened),
            Opening::readable);
  EXPECT_EQ(opened.payload().size(), 8u);
}

} // namespace
