#pragma once

// The netprof wire format, version 1. Every field is encoded explicitly little-endian at a
// fixed offset; no struct is ever copied to or from the wire. Every received message is
// decoded through decode_header(), which rejects anything malformed or foreign.
//
// Header layout (header_size bytes):
//   off  size  field
//   0    4     magic            0x4652504E, so the bytes on the wire read "NPRF" in a dump
//   4    1     version          1
//   5    1     kind             MessageKind
//   6    2     flags            MessageFlags bits
//   8    4     sender_id        0 = publisher, N >= 1 = subscriber N
//   12   8     run_id           chosen at random by the publisher; 0 in a subscriber's hello
//                                 while it has no run (first hellos, or looking for a
//                                 restarted publisher after its own went silent)
//   20   8     sequence         data: per-publisher sequence; see MessageKind for others
//   28   8     intended_ns      steady-clock ns when the message was due to be sent
//   36   8     sent_ns          steady-clock ns when it was actually sent
//   44   4     payload_length   bytes after the header; must equal what arrived
//   48   4     record_count     data: number of named records in the payload (--num-vars), else
//                                 0; hello, echo, final_counters: the sender's instance tag
//
// Echo payload (echo_stamps_size bytes): the subscriber's own steady-clock stamps of the probe
// it answers, so the publisher can estimate the offset between the two clocks (NTP's t2, t3):
//   off  size  field
//   0    8     arrived_ns       when the probe arrived (t2), subscriber clock
//   8    8     echoed_ns        when the echo was sent (t3), subscriber clock
// An echo with no payload (a subscriber that predates the stamps) still gives a round trip.
// A probe flagged full_echo (--echo full) is answered with full_echo_payload_size() bytes: the
// stamps first, then filler up to the probe's own payload length, so the echo is as large as
// the probe on the wire (as sockperf, ddsperf and iceperf echo). Any other length is malformed.
//
// Instance tag: messages from a subscriber carry no records, so their record_count field holds
// a random nonzero number the subscriber process picks when it starts. A publisher tells a
// restarted subscriber (same id, new process) from a repeated hello by it. 0 means "no tag"
// (a subscriber that predates it), which never counts as a restart; publishers that predate it
// ignore the field in these messages, so the format stays version 1.
//
// Address proof (docs/hostile-input.md, "Joining a run"): a publisher answers a hello whose
// cookie is missing or wrong with a challenge, a header alone (never larger than the hello it
// answers), sent only to the hello's sender. The cookie is a keyed hash, under a secret of this
// run, of the sender's address, id and instance tag; a hello carrying it back proves the sender
// receives at that address, and only then does the publisher tell it the run id. The
// acknowledgement carries the run's end token too: END and final_ack must carry it, so that
// whoever sees only what subscribers send (their hellos and echoes carry the run id) cannot
// end a subscriber's run.
//
// A challenge naming subscriber 0 (no subscriber has that id), with no cookie, is an
// invitation: a publisher sends it to the peers it was given on its command line while it waits
// for subscribers, and a subscriber given only its own address (MADARA's form) takes the
// sender as its publisher and says hello.
//
// Control fields by kind (the others as in the table above; intended_ns holds no time in
// these, see carried_secret):
//   kind        sequence                      intended_ns                record_count
//   hello       0                             the cookie echoed (0: none) instance tag
//   challenge   the subscriber id challenged  the cookie                 the hello's tag
//   hello_ack   the subscriber id             the end token              its instance tag
//               (its payload: the RunDescription of the run, below)
//   end         measured messages sent        the end token              0
//   final_ack   the subscriber id             the end token              its instance tag
//   progress    measured messages received    0                          its instance tag
//               (distinct ones, so far: --count-received in a stream)

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace netprof::wire {

inline constexpr std::uint32_t magic = 0x4652504E;
inline constexpr std::uint8_t version = 1;
inline constexpr std::size_t header_size = 52;

enum class MessageKind : std::uint8_t {
  hello = 1,          // subscriber -> publisher: "I am here"; repeated until acknowledged
                      // (and again while its publisher is silent, to find a restarted one)
  hello_ack = 2,      // publisher -> subscribers: sequence = the subscriber id acknowledged
  data = 3,           // publisher -> subscribers: the measured stream (flags: probe, warmup)
  echo = 4,           // subscriber -> publisher: a probe's sequence and stamps, copied back,
                      // then the subscriber's own stamps (EchoStamps)
  end = 5,            // publisher -> subscribers: sequence = measured messages sent in total
  final_counters = 6, // subscriber -> publisher: payload = encoded SubscriberCounters
  final_ack = 7,      // publisher -> subscribers: sequence = the subscriber id acknowledged
  challenge = 8,      // publisher -> the sender of a hello only: prove your address (above)
  // subscriber -> publisher, in a stream run by --count-received only: "I have received
  // sequence distinct measured messages". Sent when it reaches the run's count, and again now
  // and then until END, since a datagram may be lost. A publisher that predates it refuses it.
  progress = 9,
};

namespace flags {
inline constexpr std::uint16_t probe = 1u << 0;  // subscriber must echo it
inline constexpr std::uint16_t warmup = 1u << 1; // excluded from every figure
// On final_counters: the subscriber is leaving before the end (interrupted), so these are
// its counters so far.
inline constexpr std::uint16_t departing = 1u << 2;
// The payload ends with a 16-byte MAC of everything before it (--key-file): control messages
// only, and then every one of them.
inline constexpr std::uint16_t authenticated = 1u << 3;
// On a probe (--echo full): echo as many bytes as the probe carries, not the stamps alone.
inline constexpr std::uint16_t full_echo = 1u << 4;
inline constexpr std::uint16_t known = probe | warmup | departing | authenticated | full_echo;
} // namespace flags

struct Header {
  MessageKind kind = MessageKind::data;
  std::uint16_t flags = 0;
  std::uint32_t sender_id = 0;
  std::uint64_t run_id = 0;
  std::uint64_t sequence = 0;
  std::int64_t intended_ns = 0;
  std::int64_t sent_ns = 0;
  std::uint32_t payload_length = 0;
  std::uint32_t record_count = 0;
};

// The instance tag a subscriber's message carries (see the layout above); 0 = none.
inline std::uint32_t instance_tag(const Header& header) noexcept
{
  return header.kind == MessageKind::data ? 0 : header.record_count;
}

// Where the control fields above are kept, for the kinds that carry them.
inline std::uint64_t carried_secret(const Header& header) noexcept
{
  return static_cast<std::uint64_t>(header.intended_ns);
}
inline void carry_secret(Header& header, std::uint64_t secret) noexcept
{
  header.intended_ns = static_cast<std::int64_t>(secret);
}

enum class DecodeError {
  none,
  truncated, // fewer than header_size bytes
  bad_magic,
  bad_version,
  bad_kind,
  bad_flags,       // bits this version does not define
  length_mismatch, // payload_length disagrees with the bytes that arrived
};

std::string_view to_string(DecodeError error) noexcept;

// Writes header_size bytes at the front of `out`. Precondition: out.size() >= header_size.
void encode_header(const Header& header, std::span<std::byte> out) noexcept;

// What changes from one data message to the next. A sender encodes the rest of the header once
// and rewrites only these per message: the stream's per-message work is netprof's, not the
// transport's, and shows in every throughput figure.
struct DataStamp {
  std::uint16_t flags = 0;
  std::uint64_t sequence = 0;
  std::int64_t intended_ns = 0;
  std::int64_t sent_ns = 0;
};

// Writes the stamp's fields over a header encode_header wrote at the front of `out`, leaving
// the others as they are. Precondition: out.size() >= header_size.
void restamp_header(const DataStamp& stamp, std::span<std::byte> out) noexcept;

// Decodes and validates the header of a whole received message (header plus payload).
DecodeError decode_header(std::span<const std::byte> message, Header& out) noexcept;

// A subscriber's stamps in its echo (the echo payload above), on its own clock.
struct EchoStamps {
  std::int64_t arrived_ns = 0; // t2
  std::int64_t echoed_ns = 0;  // t3
};

inline constexpr std::size_t echo_stamps_size = 2 * 8;

// The payload of a full echo answering a probe of `probe_payload` bytes: as large as the probe,
// but never too small for the stamps (a probe below echo_stamps_size gets a larger echo).
inline constexpr std::size_t full_echo_payload_size(std::size_t probe_payload) noexcept
{
  return probe_payload > echo_stamps_size ? probe_payload : echo_stamps_size;
}

// Precondition: out.size() >= echo_stamps_size.
void encode_echo_stamps(const EchoStamps& stamps, std::span<std::byte> out) noexcept;

// False when the payload is not exactly echo_stamps_size bytes, a stamp is negative (a steady
// clock counts up from boot), or the echo left before its probe arrived.
bool decode_echo_stamps(std::span<const std::byte> payload, EchoStamps& out) noexcept;

// A subscriber's final counters, sent back in a final_counters message's payload.
// Encoded as a fixed sequence of little-endian u64 fields (final_counters_size bytes).
struct SubscriberCounters {
  std::uint64_t received = 0; // measured data messages received, duplicates included
  std::uint64_t unique = 0;   // distinct sequence numbers received
  std::uint64_t duplicates = 0;
  std::uint64_t out_of_order = 0;
  std::uint64_t gaps = 0;             // times the sequence jumped forward by more than one
  std::uint64_t datagrams = 0;        // datagrams that carried measured messages
  std::uint64_t payload_bytes = 0;    // application payload bytes of measured messages
  std::uint64_t wire_bytes = 0;       // bytes the transport delivered (header + payload)
  std::uint64_t first_to_last_ns = 0; // subscriber clock, first to last measured message
  std::uint64_t probes_echoed = 0;
  std::uint64_t rejected = 0; // malformed or foreign messages ignored
  std::uint64_t warmup_received = 0;
  std::uint64_t records_decoded = 0; // --num-vars records decoded and found
};

inline constexpr std::size_t final_counters_size = 13 * 8;

// What a process cost so far (getrusage).
struct ProcessUsage {
  std::uint64_t user_cpu_ns = 0;
  std::uint64_t system_cpu_ns = 0;
  std::uint64_t peak_rss_bytes = 0;
};

// What follows a subscriber's counters in the same final_counters payload: what its process
// cost until then, so the publisher reports every process's cost, and the measured messages it
// dropped on purpose (--drop-rate), so the publisher tells injected loss from real loss.
// Counters alone (final_counters_size bytes) come from a subscriber that predates it.
// The last field, the join time, came later: an addendum without it (final_addendum_v1_size
// bytes) is from a subscriber that predates it, which leaves it 0.
struct FinalAddendum {
  ProcessUsage usage;
  std::uint64_t injected_drops = 0;
  // Subscriber clock: from its start (before its endpoint opened) to the publisher's first
  // acknowledgement of it; 0 unknown.
  std::uint64_t join_ns = 0;
};

inline constexpr std::size_t final_addendum_v1_size = 4 * 8;
inline constexpr std::size_t final_addendum_size = 5 * 8;
inline constexpr std::size_t final_counters_with_addendum_size =
    final_counters_size + final_addendum_size;

// Precondition: out.size() >= final_addendum_size.
void encode_final_addendum(const FinalAddendum& addendum, std::span<std::byte> out) noexcept;

// False when the payload is neither final_addendum_size nor final_addendum_v1_size bytes, or
// names more than any process spends (CPU time or a join over a year, 2^48 bytes of memory).
bool decode_final_addendum(std::span<const std::byte> payload, FinalAddendum& out) noexcept;

// What a publisher's acknowledgement (hello_ack) carries as its payload: the run the subscriber
// joins, so that it reports the run's settings rather than its own defaults. Encoded as fixed
// little-endian u64 fields (the two rates as IEEE-754 doubles), run_description_size bytes. An
// acknowledgement without it (a publisher that predates it) describes nothing.
struct RunDescription {
  std::uint64_t payload_size = 0;
  std::uint64_t num_vars = 0;
  std::uint64_t ping_pong = 0; // 0: stream, 1: ping-pong
  // --fanout round-robin: each data message goes to one subscriber, so gaps in the sequence
  // numbers are the others' messages, not loss. Carried as bit 1 of the ping_pong field, which
  // a publisher that predates it leaves 0 and a subscriber that predates it refuses.
  bool round_robin = false;
  std::uint64_t test_ns = 0; // the measured phase's planned length; 0 when counted
  std::uint64_t count = 0;   // measured messages planned; 0 when timed
  double send_hz = 0.0;      // 0: as fast as possible
  std::uint64_t warmup_ns = 0;
  std::uint64_t warmup_count = 0; // --warmup-count + 1; 0: the warm-up is timed
  double probe_hz = 0.0;
  std::uint64_t subscribers = 0; // how many the publisher waited for
  // --count-received: the measured messages each subscriber is to receive; 0: none. The last
  // field, added later: a description without it (run_description_v1_size bytes) is from a
  // publisher that predates it, which leaves it 0.
  std::uint64_t count_received = 0;
};

inline constexpr std::size_t run_description_v1_size = 10 * 8;
inline constexpr std::size_t run_description_size = 11 * 8;

// Precondition: out.size() >= run_description_size.
void encode_run_description(const RunDescription& description, std::span<std::byte> out) noexcept;

// False when the payload is neither run_description_size nor run_description_v1_size bytes
// (a subscriber that predates the last field refuses the longer one), or a field is out of any
// range a publisher sends (a NaN or negative rate, a mode field other than its two bits).
bool decode_run_description(std::span<const std::byte> payload, RunDescription& out) noexcept;

// Precondition: out.size() >= final_counters_size.
void encode_counters(const SubscriberCounters& counters, std::span<std::byte> out) noexcept;

// False when the payload is not exactly final_counters_size bytes.
bool decode_counters(std::span<const std::byte> payload, SubscriberCounters& out) noexcept;

} // namespace netprof::wire
