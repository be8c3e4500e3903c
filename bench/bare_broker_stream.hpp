#pragma once

// What the bare broker streams (bare_mqtt_stream, bare_redis_stream; still no netprof code) share,
// each doing what netprof's stream does through its broker: the publisher sends --size-byte
// messages as fast as its client writes them, marks one --probe-hz times a second as a probe and
// reads what came back every 64 messages; --warmup seconds of messages go first, unmeasured, then
// --seconds of measured ones, then an end carrying how many measured messages were sent, which
// the subscriber confirms before the publisher leaves. The subscriber echoes each probe and
// counts the measured messages on its own clock, from the first to the last (N - 1 intervals over
// that time, as netprof's subscriber), and prints one JSON line. Each baseline supplies its
// broker's client.

#include "bare_two_processes.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace bare::broker_stream {

// Byte 0 says what a message is, byte 1 whether it is a probe; an end carries at count_offset
// the number of measured messages sent. The subscriber confirms the end with one done_tag byte.
inline constexpr char warmup_tag = 'W';
inline constexpr char data_tag = 'D';
inline constexpr char end_tag = 'E';
inline constexpr char done_tag = 'F';
inline constexpr std::size_t probe_offset = 1;
inline constexpr std::size_t count_offset = 8;
static_assert(TimedStream::min_size >= count_offset + sizeof(std::uint64_t),
              "an end's count must fit");
// The publisher reads what came back once per this many sends, as netprof's does while no
// probe awaits its echo.
inline constexpr std::uint64_t sends_per_look = 64;
inline constexpr auto silence_limit = std::chrono::seconds(10);
// How long the publisher waits for the subscriber to have drained the broker's backlog.
inline constexpr auto drain_limit = std::chrono::seconds(60);

inline Clock::duration seconds(double value)
{
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

// What the subscriber counted of the publisher's messages.
struct Counts {
  std::uint64_t sent = 0; // what the end says
  std::uint64_t received = 0;
  Clock::time_point first{};
  Clock::time_point last{};
  bool ended = false;

  // One message of the publisher's (at least TimedStream::min_size bytes): an end's count is
  // kept, a probe answered by echo(), a measured message counted.
  template <typename Echo> void take(const char* message, Echo&& echo)
  {
    if (message[0] == end_tag) {
      std::memcpy(&sent, message + count_offset, sizeof sent);
      ended = true;
      return;
    }
    if (message[probe_offset] != 0)
      echo();
    if (message[0] != data_tag)
      return;
    last = Clock::now();
    if (received++ == 0)
      first = last;
  }
};

// Drives the subscriber's client with step(wait) (true when anything came) until the end came;
// nothing for silence_limit is a failure.
template <typename Step> void receive_until_end(const Counts& counts, Step&& step)
{
  for (auto heard = Clock::now(); !counts.ended;) {
    if (step(std::chrono::milliseconds(100)))
      heard = Clock::now();
    else if (Clock::now() - heard >= silence_limit)
      throw std::runtime_error("nothing came for 10 s, and no end");
  }
}

// The publisher's side goes through `link`, the baseline's client, called through templates so
// that each call is inlined into the sending loop as the baseline wrote it:
//   link.send(message)  publishes one message (a std::vector<char>) whole
//   link.look()         takes what came back (echoes, acknowledgements) without waiting
//   link.step(wait)     waits up to `wait` for what comes back, and takes it
//   link.confirmed()    true once the subscriber confirmed the end

// Sends `tag` messages for `length`; how many.
template <typename Link>
std::uint64_t blast(const TimedStream& stream, Link& link, std::vector<char>& message, char tag,
                    Clock::duration length)
{
  message[0] = tag;
  const bool probing = stream.probe_hz > 0;
  const auto probe_period = probing ? seconds(1.0 / stream.probe_hz) : Clock::duration{};
  const auto start = Clock::now();
  auto next_probe = start;
  std::uint64_t sent = 0;
  for (auto now = start; now - start < length; now = Clock::now(), ++sent) {
    const bool probe = probing && now >= next_probe;
    if (probe)
      next_probe = std::max(next_probe + probe_period, now); // no burst after a stall
    message[probe_offset] = probe ? 1 : 0;
    link.send(message);
    if ((sent + 1) % sends_per_look == 0)
      link.look();
  }
  return sent;
}

// The end, carrying `measured`; returns once the subscriber confirmed it. Leaving earlier would
// lose messages: closing a socket with replies unread resets the connection, and the broker
// drops what it had not read yet.
template <typename Link> void end(Link& link, std::vector<char>& message, std::uint64_t measured)
{
  message[0] = end_tag;
  message[probe_offset] = 0;
  std::memcpy(message.data() + count_offset, &measured, sizeof measured);
  link.send(message);
  const auto give_up = Clock::now() + drain_limit;
  while (!link.confirmed()) {
    if (Clock::now() >= give_up)
      throw std::runtime_error("the subscriber did not confirm the end within 60 s");
    link.step(std::chrono::milliseconds(100));
  }
}

// The publisher's run: the warm-up, the measured messages, the end.
template <typename Link> void publish(const TimedStream& stream, Link& link)
{
  std::vector<char> message(stream.size, 0x5a);
  if (stream.warmup > 0)
    blast(stream, link, message, warmup_tag, seconds(stream.warmup));
  end(link, message, blast(stream, link, message, data_tag, seconds(stream.seconds)));
}

// Runs the stream's two processes: the publisher in the child, the subscriber (returning its
// Counts) in the parent, which prints one JSON line: print_own_fields() prints its first fields,
// each followed by a comma, then the counts and the rate. Returns main's exit status.
template <typename Publisher, typename Subscriber, typename PrintOwnFields>
int run(const char* program, Publisher&& publisher, Subscriber&& subscriber,
        PrintOwnFields&& print_own_fields)
{
  return run_two_processes(
      {program, "subscriber", "publisher", std::chrono::seconds(10)},
      std::forward<Publisher>(publisher), std::forward<Subscriber>(subscriber),
      [&](const Counts& counts) {
        print_own_fields();
        const double measured = std::chrono::duration<double>(counts.last - counts.first).count();
        std::printf(
            "\"sent\":%llu,\"received\":%llu,\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
            static_cast<unsigned long long>(counts.sent),
            static_cast<unsigned long long>(counts.received), measured,
            counts.received > 1 && measured > 0
                ? static_cast<double>(counts.received - 1) / measured
                : 0.0);
      });
}

} // namespace bare::broker_stream
