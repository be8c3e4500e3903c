// A publisher's report on its way to publisher 0: whole frames are read back as sent, and
// anything that is not this run's report of a later publisher is refused with the reason.

#include "core/protocol/report_frame.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace netprof;
using State = ReportFrameParse::State;

const std::vector<std::byte> no_secret;
std::vector<std::byte> secret(char fill)
{
  return std::vector<std::byte>(32, std::byte(fill));
}

ReportNonce nonce(int seed)
{
  ReportNonce value;
  for (std::size_t i = 0; i < value.size(); ++i)
    value[i] = std::byte(seed + static_cast<int>(i));
  return value;
}

TEST(ReportFrame, AFrameIsReadBackWholeAndOnlyOnceAllOfItCame)
{
  const ControlAuthentication none(no_secret);
  const std::string json = R"({"result": {"status": "SUCCESS"}})";
  const std::vector<std::byte> frame = encode_report_frame(nonce(1), 2, json, none);
  ASSERT_EQ(frame.size(), report_frame_header_size + json.size());
  for (std::size_t cut = 0; cut < frame.size(); ++cut)
    EXPECT_EQ(parse_report_frame(std::span(frame).first(cut), nonce(1), 3, none).state,
              State::incomplete)
        << cut;
  const ReportFrameParse parse = parse_report_frame(frame, nonce(1), 3, none);
  ASSERT_EQ(parse.state, State::complete) << parse.refusal;
  EXPECT_EQ(parse.id, 2u);
  EXPECT_EQ(parse.json, json);
}

TEST(ReportFrame, AStrangersBytesAreRefusedAtTheFirstThatDiffers)
{
  const ControlAuthentication none(no_secret);
  const std::string text = "GET / HTTP/1.0\r\n";
  const auto* bytes = reinterpret_cast<const std::byte*>(text.data());
  const ReportFrameParse parse =
      parse_report_frame(std::span(bytes, 1), nonce(1), 2, none); // 'G' is not 'N'
  EXPECT_EQ(parse.state, State::refused);
  EXPECT_EQ(parse.refusal, "not a netprof report (wrong magic)");
}

TEST(ReportFrame, OnlyALaterPublisherOfThisRunMaySendOne)
{
  const ControlAuthentication none(no_secret);
  for (const std::uint32_t id : {0u, 3u, 99u}) {
    const auto frame = encode_report_frame(nonce(1), id, "{}", none);
    const ReportFrameParse parse = parse_report_frame(frame, nonce(1), 3, none);
    EXPECT_EQ(parse.state, State::refused) << id;
    EXPECT_EQ(parse.refusal, "a report of id " + std::to_string(id) + ", not a publisher 1 to 2");
  }
}

TEST(ReportFrame, ALengthPastTheLimitIsRefusedBeforeItsBytesCome)
{
  const ControlAuthentication none(no_secret);
  std::vector<std::byte> frame = encode_report_frame(nonce(1), 1, "{}", none);
  frame[15] = std::byte{0x7f}; // length's top byte: about 2 GiB
  const ReportFrameParse parse = parse_report_frame(frame, nonce(1), 2, none);
  EXPECT_EQ(parse.state, State::refused);
  EXPECT_NE(parse.refusal.find("bytes, more than"), std::string::npos) << parse.refusal;
}

TEST(ReportFrame, BytesAfterTheFrameAreRefused)
{
  const ControlAuthentication none(no_secret);
  std::vector<std::byte> frame = encode_report_frame(nonce(1), 1, "{}", none);
  frame.push_back(std::byte{0});
  EXPECT_EQ(parse_report_frame(frame, nonce(1), 2, none).refusal, "bytes after the report");
}

TEST(ReportFrame, UnderAKeyTheMacCoversThisConnectionsNonce)
{
  const ControlAuthentication key(secret('k'));
  const auto frame = encode_report_frame(nonce(1), 1, "{}", key);
  EXPECT_EQ(frame.size(), report_frame_header_size + 2 + ControlAuthentication::tag_size);
  EXPECT_EQ(parse_report_frame(frame, nonce(1), 2, key).state, State::complete);
  // Replayed into another connection, or sealed with another key: refused.
  EXPECT_EQ(parse_report_frame(frame, nonce(2), 2, key).state, State::refused);
  const ControlAuthentication other(secret('o'));
  EXPECT_EQ(parse_report_frame(frame, nonce(1), 2, other).state, State::refused);
  // A changed byte of the report.
  auto changed = frame;
  changed[report_frame_header_size] = std::byte{'['};
  EXPECT_EQ(parse_report_frame(changed, nonce(1), 2, key).refusal,
            "a report whose MAC is wrong (another key, or not this connection's)");
}

TEST(ReportFrame, AKeyOnOneSideOnlyIsRefusedAndSaysWhichSideHasIt)
{
  const ControlAuthentication key(secret('k'));
  const ControlAuthentication none(no_secret);
  EXPECT_EQ(
      parse_report_frame(encode_report_frame(nonce(1), 1, "{}", none), nonce(1), 2, key).refusal,
      "a report without a MAC, and this run has a --key-file");
  EXPECT_EQ(
      parse_report_frame(encode_report_frame(nonce(1), 1, "{}", key), nonce(1), 2, none).refusal,
      "a report with a MAC, and this publisher has no --key-file");
}

} // namespace
