#include "core/protocol/report_frame.hpp"

#include <algorithm>
#include <cstring>

namespace netprof {

namespace {

constexpr std::array<std::byte, 4> magic = {std::byte{'N'}, std::byte{'P'}, std::byte{'R'},
                                            std::byte{'F'}};
constexpr std::uint8_t version = 1;
constexpr std::uint8_t flag_mac = 1;

void put_u32(std::byte* at, std::uint32_t value) noexcept
{
  for (int i = 0; i < 4; ++i)
    at[i] = static_cast<std::byte>(value >> (8 * i));
}

std::uint32_t get_u32(const std::byte* at) noexcept
{
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i)
    value |= std::uint32_t{std::to_integer<std::uint8_t>(at[i])} << (8 * i);
  return value;
}

// The nonce, then the frame up to its MAC: what the MAC covers.
std::vector<std::byte> covered_by_mac(const ReportNonce& nonce, std::span<const std::byte> frame)
{
  std::vector<std::byte> covered(nonce.begin(), nonce.end());
  covered.insert(covered.end(), frame.begin(), frame.end());
  return covered;
}

ReportFrameParse refused(std::string why)
{
  ReportFrameParse parse;
  parse.state = ReportFrameParse::State::refused;
  parse.refusal = std::move(why);
  return parse;
}

} // namespace

std::vector<std::byte> encode_report_frame(const ReportNonce& nonce, std::uint32_t id,
                                           const std::string& json,
                                           const ControlAuthentication& authentication)
{
  std::vector<std::byte> frame(report_frame_header_size + json.size());
  std::memcpy(frame.data(), magic.data(), magic.size());
  frame[4] = std::byte{version};
  frame[5] = std::byte{authentication.enabled() ? flag_mac : std::uint8_t{0}};
  put_u32(frame.data() + 8, id);
  put_u32(frame.data() + 12, static_cast<std::uint32_t>(json.size()));
  std::memcpy(frame.data() + report_frame_header_size, json.data(), json.size());
  if (authentication.enabled()) {
    const auto tag = authentication.tag_of(covered_by_mac(nonce, frame));
    frame.insert(frame.end(), tag.begin(), tag.end());
  }
  return frame;
}

ReportFrameParse parse_report_frame(std::span<const std::byte> received, const ReportNonce& nonce,
                                    std::uint32_t publishers,
                                    const ControlAuthentication& authentication)
{
  // Refused as soon as a byte shows the frame is not one: a stranger that sends a line of
  // text is turned away at its first bytes, not after a wait for more.
  if (received.empty())
    return {};
  const std::size_t magic_seen = std::min(received.size(), magic.size());
  if (std::memcmp(received.data(), magic.data(), magic_seen) != 0)
    return refused("not a netprof report (wrong magic)");
  if (received.size() < report_frame_header_size)
    return {};
  if (std::to_integer<std::uint8_t>(received[4]) != version)
    return refused("a report frame of another version (" +
                   std::to_string(std::to_integer<int>(received[4])) + ")");
  const bool tagged = std::to_integer<std::uint8_t>(received[5]) == flag_mac;
  if (std::to_integer<std::uint8_t>(received[5]) > flag_mac || received[6] != std::byte{0} ||
      received[7] != std::byte{0})
    return refused("a report frame with unknown flags");
  if (tagged != authentication.enabled())
    return refused(tagged ? "a report with a MAC, and this publisher has no --key-file"
                          : "a report without a MAC, and this run has a --key-file");
  const std::uint32_t id = get_u32(received.data() + 8);
  if (id == 0 || id >= publishers)
    return refused("a report of id " + std::to_string(id) + ", not a publisher 1 to " +
                   std::to_string(publishers - 1));
  const std::size_t length = get_u32(received.data() + 12);
  if (length > max_relayed_report_size)
    return refused("a report of " + std::to_string(length) + " bytes, more than " +
                   std::to_string(max_relayed_report_size));
  ReportFrameParse parse;
  parse.frame_size = report_frame_header_size + length + authentication.tag_room();
  if (received.size() < parse.frame_size)
    return parse;
  if (received.size() > parse.frame_size)
    return refused("bytes after the report");
  if (authentication.enabled() &&
      !authentication.verify(
          covered_by_mac(nonce, received.first(parse.frame_size - ControlAuthentication::tag_size)),
          received.last(ControlAuthentication::tag_size)))
    return refused("a report whose MAC is wrong (another key, or not this connection's)");
  parse.state = ReportFrameParse::State::complete;
  parse.id = id;
  const auto* text = reinterpret_cast<const char*>(received.data() + report_frame_header_size);
  parse.json.assign(text, length);
  return parse;
}

} // namespace netprof
