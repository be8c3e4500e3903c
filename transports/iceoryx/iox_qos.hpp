#pragma once

// The quality of service an iceoryx run asks for, in one place: what the command line chose
// (-q, --iox-queue-full) turned into iceoryx's options. The core's coming --reliability and
// --history map onto this struct.

#include <cstddef>
#include <cstdint>
#include <string>

namespace netprof::iox_parts {

// --iox-queue-full: what happens when a subscriber's queue is full.
enum class QueueFull {
  discard, // the publisher replaces the oldest queued message (iceoryx's DISCARD_OLDEST_DATA):
           // never waits; the subscriber counts the loss
  block    // the publisher waits in publish() until the slowest subscriber takes one
           // (WAIT_FOR_CONSUMER on the publisher, BLOCK_PRODUCER on the subscriber)
};

struct Qos {
  QueueFull queue_full = QueueFull::discard;
  std::uint64_t queue_capacity = 0;  // the data subscriber's queue, in messages
  std::uint64_t history_request = 0; // data messages a late subscriber asks for: none
  // Back-channel messages (hellos, echoes, final counters) a publisher that subscribes late
  // gets: none. A history would keep each echo in the publisher port and free the oldest per
  // publish, on the round trip; a subscriber's open waits for the connection to a publisher
  // that is there, and the core says hello again every 100 ms to one that is not yet.
  std::uint64_t back_channel_history = 0;
};

// iceoryx's queues hold chunks, not bytes: -q bytes' worth of messages of `message_bytes`,
// within 1 and iceoryx's limit (`most`); 0 gives the limit.
std::uint64_t queue_capacity_for(std::size_t queue_length_bytes, std::size_t message_bytes,
                                 std::uint64_t most) noexcept;

const char* queue_full_name(QueueFull policy) noexcept;

// One line for the report's notes: what is in effect.
std::string describe(const Qos& qos);

} // namespace netprof::iox_parts
