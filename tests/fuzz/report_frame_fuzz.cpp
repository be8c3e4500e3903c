// libFuzzer target: a report frame as publisher 0 reads it from whoever connects to its lead
// address (src/core/protocol/report_frame.hpp). The input: a byte choosing the key (none or
// one) and the run's --publishers, then the bytes received. For any bytes received:
//  - nothing crashes, whatever the length field says (nothing is read past what came);
//  - a complete frame is exactly the bytes received, of a publisher 1 to P-1, and encoding
//    its id and JSON with the same nonce and key gives those bytes back;
//  - every shorter prefix of a complete frame is incomplete, never refused nor complete;
//  - once refused, the bytes that come after cannot make it complete.

#include "fuzz_input.hpp"

#include "core/protocol/report_frame.hpp"

#include <array>
#include <vector>

namespace {

using namespace netprof;
using State = ReportFrameParse::State;

const ControlAuthentication& authentication(bool keyed)
{
  static const std::array<std::byte, 32> secret{std::byte{0x6b}, std::byte{0x65}, std::byte{0x79}};
  static const ControlAuthentication with_key{secret};
  static const ControlAuthentication without_key{std::span<const std::byte>{}};
  return keyed ? with_key : without_key;
}

ReportNonce fixed_nonce()
{
  ReportNonce nonce;
  for (std::size_t i = 0; i < nonce.size(); ++i)
    nonce[i] = std::byte(0xa0 + i);
  return nonce;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  netprof::fuzz::FuzzInput input(std::span(reinterpret_cast<const std::byte*>(data), size));
  const std::uint8_t choice = input.u8();
  const bool keyed = (choice & 0x80) != 0;
  const std::uint32_t publishers = 2 + (choice & 0x0f); // 2 to 17
  const std::span<const std::byte> received = input.bytes(size);
  const ControlAuthentication& key = authentication(keyed);
  const ReportNonce nonce = fixed_nonce();

  const ReportFrameParse parse = parse_report_frame(received, nonce, publishers, key);
  if (parse.state == State::complete) {
    NETPROF_FUZZ_CHECK(parse.frame_size == received.size());
    NETPROF_FUZZ_CHECK(parse.id >= 1 && parse.id < publishers);
    const std::vector<std::byte> again = encode_report_frame(nonce, parse.id, parse.json, key);
    NETPROF_FUZZ_CHECK(std::equal(again.begin(), again.end(), received.begin(), received.end()));
    for (std::size_t cut = 0; cut < received.size(); cut += 1 + cut / 8)
      NETPROF_FUZZ_CHECK(parse_report_frame(received.first(cut), nonce, publishers, key).state ==
                         State::incomplete);
  }
  if (parse.state == State::refused) {
    NETPROF_FUZZ_CHECK(!parse.refusal.empty());
    std::vector<std::byte> longer(received.begin(), received.end());
    longer.resize(longer.size() + 64);
    NETPROF_FUZZ_CHECK(parse_report_frame(longer, nonce, publishers, key).state != State::complete);
  }
  return 0;
}
