// libFuzzer target: the handshake's messages as the core reads them (include/netprof/wire.hpp,
// "Address proof"; src/core/protocol/control_authentication.hpp). For any received message:
//  - without a key, it may be read exactly when it carries no MAC, and is read whole;
//  - with a key, a control message is read only with a valid MAC, and loses it; data and
//    echoes never carry one;
//  - sealing any control message with the key and opening it gives it back, and changing any
//    byte of the sealed message makes it unreadable;
//  - a cookie proves only itself, and 0 proves nothing;
//  - final counters of any value are judged without a crash (counter_plausibility.hpp);
//  - a message is of another run exactly when both it and this process have a run and the two
//    differ, and a sealed control message keeps its run id, so a replay of another run's
//    message, its MAC valid, is still told apart (foreign_runs.hpp).

#include "fuzz_input.hpp"

#include "core/protocol/address_proof.hpp"
#include "core/protocol/control_authentication.hpp"
#include "core/protocol/counter_plausibility.hpp"
#include "core/protocol/foreign_runs.hpp"

#include <netprof/wire.hpp>

#include <algorithm>
#include <array>
#include <cstring>

namespace {

using namespace netprof;
using namespace netprof::wire;

const ControlAuthentication& keyed()
{
  static const std::array<std::byte, 32> secret{std::byte{0x6b}, std::byte{0x65}, std::byte{0x79}};
  static const ControlAuthentication authentication{secret};
  return authentication;
}

bool is_control(MessageKind kind)
{
  return kind != MessageKind::data && kind != MessageKind::echo;
}

void check_round_trip(const Header& header, std::span<const std::byte> payload, std::size_t flip)
{
  OutgoingMessage out(payload.size() + ControlAuthentication::tag_size);
  std::copy(payload.begin(), payload.end(), out.payload().begin());
  const std::span<const std::byte> sealed = keyed().seal(out, header);
  Header opened_header;
  NETPROF_FUZZ_CHECK(decode_header(sealed, opened_header) == DecodeError::none);
  // The MAC covers the run id and the instance tag: what binds a message to its run.
  NETPROF_FUZZ_CHECK(opened_header.run_id == header.run_id &&
                     instance_tag(opened_header) == instance_tag(header));
  std::span<const std::byte> opened = sealed;
  NETPROF_FUZZ_CHECK(keyed().open(opened_header, opened));
  NETPROF_FUZZ_CHECK(opened.size() == header_size + payload.size());
  NETPROF_FUZZ_CHECK(std::equal(payload.begin(), payload.end(), opened.begin() + header_size));

  std::vector<std::byte> tampered(sealed.begin(), sealed.end());
  tampered[flip % tampered.size()] ^= std::byte{0x01};
  Header tampered_header;
  std::span<const std::byte> readable = tampered;
  NETPROF_FUZZ_CHECK(decode_header(tampered, tampered_header) != DecodeError::none ||
                     !keyed().open(tampered_header, readable));
}

void check_cookies(const Header& header)
{
  static const AddressProof proof;
  const PeerHandle sender{static_cast<std::uint64_t>(header.sent_ns)};
  const std::uint32_t tag = instance_tag(header);
  const std::uint64_t cookie = proof.cookie(sender, header.sender_id, tag);
  NETPROF_FUZZ_CHECK(cookie != 0);
  NETPROF_FUZZ_CHECK(proof.proves(cookie, sender, header.sender_id, tag));
  NETPROF_FUZZ_CHECK(!proof.proves(0, sender, header.sender_id, tag));
}

void check_counters(std::span<const std::byte> payload, const Header& header)
{
  SubscriberCounters counters;
  if (!decode_counters(payload, counters))
    return;
  CounterLimits limits;
  limits.sent = header.sequence;
  limits.probes_sent = header.sequence / 10;
  limits.payload_size = header.record_count;
  limits.records_per_message = header.record_count % 64;
  limits.measured_so_far = Nanoseconds(header.sent_ns & 0x7fffffffffff);
  const char* why = implausibility(counters, limits);
  NETPROF_FUZZ_CHECK(why == nullptr || std::strlen(why) > 0);
}

// Run ids this process might have: none yet, the message's own, and another.
void check_run_binding(const Header& header)
{
  NETPROF_FUZZ_CHECK(!of_another_run(header, 0));
  NETPROF_FUZZ_CHECK(!of_another_run(header, header.run_id));
  const std::uint64_t other = header.run_id + 1 == 0 ? 1 : header.run_id + 1;
  NETPROF_FUZZ_CHECK(of_another_run(header, other) == (header.run_id != 0));
  ForeignRuns foreign;
  foreign.count(header, header.kind == MessageKind::data);
  NETPROF_FUZZ_CHECK(foreign.messages == 1 && foreign.last_run_id == header.run_id);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::span<const std::byte> message = std::as_bytes(std::span(data, size));
  Header header;
  if (decode_header(message, header) != DecodeError::none)
    return 0;
  const bool tagged = (header.flags & flags::authenticated) != 0;

  const ControlAuthentication unkeyed{std::span<const std::byte>{}};
  std::span<const std::byte> whole = message;
  NETPROF_FUZZ_CHECK(unkeyed.open(header, whole) == !tagged);
  NETPROF_FUZZ_CHECK(whole.size() == size);

  std::span<const std::byte> read = message;
  if (keyed().open(header, read)) {
    NETPROF_FUZZ_CHECK(is_control(header.kind) ? tagged && read.size() == size - 16 : !tagged);
  }

  check_cookies(header);
  check_run_binding(header);
  const std::span<const std::byte> payload = message.subspan(header_size);
  if (header.kind == MessageKind::final_counters)
    check_counters(payload, header);
  if (is_control(header.kind)) {
    Header plain = header;
    plain.flags &= static_cast<std::uint16_t>(~flags::authenticated);
    check_round_trip(plain, payload, size > 0 ? data[0] : 0);
  }
  return 0;
}
