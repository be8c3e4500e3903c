// The core's side of lending (outgoing_message.hpp): which loans get the payload written into
// them under --payload-fill, and that only the header is rewritten otherwise. No transport.

#include "core/protocol/outgoing_message.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace netprof {
namespace {

constexpr std::size_t payload_size = 100;

// A data message as the send loop builds it: a header in front of a payload of 0x5a.
std::vector<std::byte> built_message(std::uint64_t sequence)
{
  OutgoingMessage message(payload_size);
  std::fill(message.payload().begin(), message.payload().end(), std::byte{0x5a});
  wire::Header header;
  header.kind = wire::MessageKind::data;
  header.sequence = sequence;
  const auto bytes = message.with_header(header);
  return {bytes.begin(), bytes.end()};
}

Loan loan_over(std::vector<std::byte>& memory, bool holds_payload)
{
  Loan loan;
  loan.bytes = memory;
  loan.holds_payload = holds_payload;
  return loan;
}

TEST(PayloadFill, OnceWritesThePayloadOnlyIntoABufferThatDoesNotHoldIt)
{
  std::vector<std::byte> memory(wire::header_size + payload_size);
  EXPECT_TRUE(must_write_payload(PayloadFill::once, loan_over(memory, false)));
  EXPECT_FALSE(must_write_payload(PayloadFill::once, loan_over(memory, true)));
}

TEST(PayloadFill, EveryMessageWritesThePayloadWhateverTheBufferHolds)
{
  std::vector<std::byte> memory(wire::header_size + payload_size);
  EXPECT_TRUE(must_write_payload(PayloadFill::every_message, loan_over(memory, false)));
  EXPECT_TRUE(must_write_payload(PayloadFill::every_message, loan_over(memory, true)));
}

TEST(PayloadFill, AHoldingLoanGetsOnlyTheNewHeaderUnderOnce)
{
  const std::vector<std::byte> message = built_message(7);
  std::vector<std::byte> sut(message.size(), std::byte{0xee}); // what the buffer held
  EXPECT_FALSE(write_into_loan(loan_over(sut, true), message, PayloadFill::once));

  EXPECT_TRUE(std::equal(message.begin(), message.begin() + wire::header_size, sut.begin()));
  EXPECT_TRUE(std::all_of(sut.begin() + wire::header_size, sut.end(), [](std::byte b) {
    return b == std::byte{0xee};
  })) << "the payload was written although the buffer held it";
}

TEST(PayloadFill, AFreshLoanGetsTheWholeMessage)
{
  const std::vector<std::byte> message = built_message(8);
  std::vector<std::byte> sut(message.size(), std::byte{0xee});
  EXPECT_TRUE(write_into_loan(loan_over(sut, false), message, PayloadFill::once));
  EXPECT_EQ(sut, message);
}

TEST(PayloadFill, EveryMessageRewritesTheWholeMessageIntoAHoldingLoan)
{
  const std::vector<std::byte> message = built_message(9);
  std::vector<std::byte> sut(message.size(), std::byte{0xee});
  EXPECT_TRUE(write_into_loan(loan_over(sut, true), message, PayloadFill::every_message));
  EXPECT_EQ(sut, message);
}

} // namespace
} // namespace netprof
