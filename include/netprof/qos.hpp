#pragma once

// Quality of service as DDS names it, across transports: --reliability reliable|best-effort
// and --history keep-last[:N]|keep-all. The user's request is parsed once here; each transport
// says what it means for it in one place (Transport::effective_qos), and every run reports the
// QoS in effect, given or not.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netprof {

enum class Reliability : std::uint8_t {
  best_effort, // what is lost (a full queue, a dropped datagram) stays lost
  reliable     // nothing is lost: the publisher waits rather than drop
};

enum class HistoryKind : std::uint8_t {
  keep_last, // a reader that lags by the depth loses what it did not read in time
  keep_all,  // the publisher waits for its slowest reader; nothing is overwritten
  none       // effective only: the transport keeps nothing for a late reader (UDP)
};

// Largest keep-last depth: DDS and ZeroMQ both hold it in a signed 32-bit int.
inline constexpr std::uint32_t max_history_depth = 2'147'483'647;

struct History {
  HistoryKind kind = HistoryKind::keep_last;
  std::optional<std::uint32_t> depth{}; // keep-last:N, in messages; never with keep-all

  friend bool operator==(const History&, const History&) = default;
};

// What the user asked for; an unset field was not given.
struct QosRequest {
  std::optional<Reliability> reliability{};
  std::optional<History> history{};

  bool empty() const noexcept { return !reliability && !history; }
  friend bool operator==(const QosRequest&, const QosRequest&) = default;
};

// Whose setting decides the QoS of a run.
enum class QosSetBy : std::uint8_t {
  transport,    // fixed by the transport: nothing to choose (TCP is reliable, UDP is not)
  publisher,    // the publisher's alone; a subscriber's only states what it expects
  every_process // each process applies its own, and they must agree (a messaging pattern, DDS)
};

// The QoS a run has on its transport, whether the user asked for one or not.
struct EffectiveQos {
  Reliability reliability = Reliability::best_effort;
  HistoryKind history = HistoryKind::none;
  // The messages a reader may lag behind before the history applies (keep-last: the rest is
  // lost; keep-all: the publisher waits); none where the bound is in bytes or there is none.
  std::optional<std::uint64_t> depth{};
  QosSetBy set_by = QosSetBy::transport;
  std::string meaning{}; // one line: what this QoS does on this transport, and why
  QosRequest requested{};

  friend bool operator==(const EffectiveQos&, const EffectiveQos&) = default;
};

// --history's value; throws UsageError in the shared wording ("invalid value 'x' for --history:
// expected ..."). --reliability is a plain choice, checked by the option parser.
History parse_history(std::string_view text);

const char* to_string(Reliability reliability) noexcept;
const char* to_string(HistoryKind kind) noexcept;
const char* to_string(QosSetBy set_by) noexcept;
std::string to_string(const History& history); // "keep-last:8", "keep-all"
// "--reliability reliable --history keep-last:8", or "none" when nothing was asked.
std::string to_string(const QosRequest& request);

namespace qos {

// For transports whose reliability and history are one and the same choice, whether the
// publisher waits for a reader at a full queue: reliable and keep-all ask it to, best-effort
// and keep-last not to. Empty when the request asks neither; throws UsageError when its two
// halves contradict (reliable with keep-last) on `transport`.
std::optional<bool> publisher_waits(const QosRequest& request, std::string_view transport);

// For a transport whose publisher always waits for a reader that lags, and loses nothing
// (TCP, Unix-domain sockets, message queues): reliable, keep-all, set by the transport, with
// `meaning`. Best-effort and keep-last are refused with `why_it_cannot_lose`.
EffectiveQos always_reliable(const QosRequest& request, std::string_view transport,
                             std::string_view why_it_cannot_lose, std::string meaning);

// Throws UsageError: "--reliability reliable is not available on udp: <why>" (or --history).
[[noreturn]] void refuse(std::string_view option_and_value, std::string_view transport,
                         std::string_view why);

// "--reliability reliable", "--history keep-last:8": the part of the request to name in a
// refusal.
std::string reliability_option(Reliability reliability);
std::string history_option(const History& history);

} // namespace qos

} // namespace netprof
