// libFuzzer target: the UDP fragment reassembler, fed a script of datagrams
// (reassembler_script.hpp) with the clock under the script's control. After every datagram it
// checks what transports/udp/reassembler.hpp promises:
//  - memory: at most max(slots, 1) messages in reassembly, no slot buffer larger than
//    max_message_size, and no partial message outliving its idle timeout;
//  - accounting: every datagram counted under exactly one outcome, every delivery counted, and
//    a fragment counted as a duplicate only when that fragment of that message was stored before;
//  - integrity: a delivered message is never torn: its length is the total its fragments
//    announced, it came in as many datagrams as they announced, and every byte carries the
//    pattern of that message at that position.
// ASan and UBSan (see CMakeLists.txt) catch the rest: every datagram is its own exactly-sized
// allocation, so a read past its end is reported.

#include "reassembler_script.hpp"

#include "udp/reassembler.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace {

using namespace netprof;
using namespace netprof::fuzz;

using Bytes = std::vector<std::byte>;

// Datagram bytes one run may send. A script can ask for up to 64 KiB per datagram; without a
// budget a long input spends its time filling patterns instead of reaching new states.
constexpr std::size_t byte_budget = 512 * 1024;

// The byte loops below run for every byte sent and delivered; left to SanitizerCoverage, their
// compare tracing took most of each run's time and tells the fuzzer nothing about the code
// under test. ASan and UBSan still check them; noinline keeps them out of instrumented callers.
__attribute__((noinline, no_sanitize("coverage"))) void
fill_pattern(std::span<std::byte> out, std::uint64_t seed, std::uint64_t first_position) noexcept
{
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = pattern_byte(seed, first_position + i);
  }
}

__attribute__((noinline, no_sanitize("coverage"))) bool
has_pattern(std::span<const std::byte> bytes, std::uint64_t seed) noexcept
{
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != pattern_byte(seed, i)) {
      return false;
    }
  }
  return true;
}

// What the sender of a structured datagram knows about the message it belongs to.
struct Expected {
  std::uint64_t source = 0;
  udp::FragmentHeader header;
};

class Harness {
public:
  explicit Harness(const ScriptLimits& script)
      : m_limits{script.max_message_size, script.slots,
                 std::chrono::milliseconds(script.timeout_ms)},
        m_sut(m_limits)
  {
  }

  void advance(std::uint8_t milliseconds) { m_now += std::chrono::milliseconds(milliseconds); }

  bool budget_spent() const noexcept { return m_bytes_sent >= byte_budget; }

  void send(const SenderFragment& fragment)
  {
    Bytes datagram(udp::fragment_header_size + fragment.length);
    udp::encode_fragment_header(fragment.header, datagram);
    fill_pattern(std::span(datagram).subspan(udp::fragment_header_size),
                 pattern_seed(fragment.source, fragment.header.message_id, fragment.header.total),
                 fragment.header.offset);
    accept(fragment.source, datagram, Expected{fragment.source, fragment.header});
  }

  void send_raw(std::span<const std::byte> after_magic)
  {
    Bytes datagram(sizeof udp::fragment_magic + after_magic.size());
    std::copy(std::begin(udp::fragment_magic), std::end(udp::fragment_magic), datagram.begin());
    std::copy(after_magic.begin(), after_magic.end(),
              datagram.begin() + sizeof udp::fragment_magic);
    accept(raw_source, datagram, std::nullopt);
  }

  void expire()
  {
    m_sut.expire(m_now);
    if (all_idle_past_timeout()) {
      NETPROF_FUZZ_CHECK(m_sut.in_progress() == 0);
    }
    check_bounds();
  }

private:
  void accept(std::uint64_t source, std::span<const std::byte> datagram,
              const std::optional<Expected>& expected)
  {
    m_bytes_sent += datagram.size();
    const bool idle = all_idle_past_timeout();
    const udp::ReassemblyCounters before = m_sut.counters();
    const std::optional<udp::ReassembledMessage> delivered = m_sut.accept(source, datagram, m_now);
    ++m_accepted;
    if (expected) {
      const FragmentId id{source, expected->header.message_id, expected->header.index};
      if (m_sut.counters().duplicates != before.duplicates) {
        // A slot that kept another message's fragment bits would call a new fragment a
        // duplicate and never deliver the message.
        NETPROF_FUZZ_CHECK(m_stored.contains(id));
      }
      if (m_sut.counters().fragments != before.fragments) {
        m_stored.insert(id);
      }
    }
    m_last_accept = m_now;
    if (delivered) {
      ++m_delivered;
      check_message(*delivered, expected);
    }
    if (idle) {
      // Every older partial was evicted first; at most this datagram's message is in progress.
      NETPROF_FUZZ_CHECK(m_sut.in_progress() <= 1);
    }
    check_bounds();
  }

  void check_message(const udp::ReassembledMessage& message,
                     const std::optional<Expected>& expected)
  {
    NETPROF_FUZZ_CHECK(!message.bytes.empty());
    NETPROF_FUZZ_CHECK(message.bytes.size() <= m_limits.max_message_size);
    NETPROF_FUZZ_CHECK(message.datagrams >= 1);
    // Fragments never overlap or leave holes, so their payloads add up to the message.
    NETPROF_FUZZ_CHECK(message.wire_bytes ==
                       message.datagrams * udp::fragment_header_size + message.bytes.size());
    if (!expected) {
      return;
    }
    NETPROF_FUZZ_CHECK(message.bytes.size() == expected->header.total);
    NETPROF_FUZZ_CHECK(message.datagrams == expected->header.count);
    NETPROF_FUZZ_CHECK(
        has_pattern(message.bytes, pattern_seed(expected->source, expected->header.message_id,
                                                expected->header.total)));
  }

  void check_bounds() const
  {
    const udp::ReassemblyCounters& c = m_sut.counters();
    // "Every fragment that is not part of a delivered message is counted under one reason."
    NETPROF_FUZZ_CHECK(c.fragments + c.malformed + c.too_large + c.inconsistent + c.duplicates +
                           c.late + c.out_of_memory ==
                       m_accepted);
    NETPROF_FUZZ_CHECK(c.messages == m_delivered);
    NETPROF_FUZZ_CHECK(m_sut.slot_count() == std::max<std::size_t>(m_limits.slots, 1));
    NETPROF_FUZZ_CHECK(m_sut.in_progress() <= m_sut.slot_count());
    for (std::size_t i = 0; i < m_sut.slot_count(); ++i) {
      NETPROF_FUZZ_CHECK(m_sut.slot_capacity(i) <= m_limits.max_message_size);
    }
  }

  // No fragment arrived for a whole timeout: every partial message is stale.
  bool all_idle_past_timeout() const { return m_now - m_last_accept >= m_limits.timeout; }

  using FragmentId = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>; // source, id, index

  udp::ReassemblyLimits m_limits;
  udp::Reassembler m_sut;
  std::set<FragmentId> m_stored; // every structured fragment the reassembler stored
  Clock::time_point m_now = Clock::time_point(std::chrono::hours(1));
  Clock::time_point m_last_accept = m_now;
  std::uint64_t m_accepted = 0;
  std::uint64_t m_delivered = 0;
  std::size_t m_bytes_sent = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  FuzzInput in(std::as_bytes(std::span(data, size)));
  Harness harness(read_limits(in));
  while (!in.exhausted() && !harness.budget_spent()) {
    const auto kind = static_cast<OpKind>(in.u8() % op_kinds);
    harness.advance(in.u8());
    switch (kind) {
    case OpKind::fragment:
      harness.send(read_fragment(in));
      break;
    case OpKind::free_header:
      harness.send(read_free_header(in));
      break;
    case OpKind::raw: {
      const std::size_t length = in.u16();
      harness.send_raw(in.bytes(length));
      break;
    }
    case OpKind::expire:
      harness.expire();
      break;
    }
  }
  return 0;
}
