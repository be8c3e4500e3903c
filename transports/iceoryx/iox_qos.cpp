#include "iox_qos.hpp"

#include <algorithm>

namespace netprof::iox_parts {

std::uint64_t queue_capacity_for(std::size_t queue_length_bytes, std::size_t message_bytes,
                                 std::uint64_t most) noexcept
{
  if (queue_length_bytes == 0)
    return most;
  const std::size_t size = std::max<std::size_t>(message_bytes, 1);
  const std::uint64_t messages = queue_length_bytes / size + (queue_length_bytes % size != 0);
  return std::clamp<std::uint64_t>(messages, 1, most);
}

const char* queue_full_name(QueueFull policy) noexcept
{
  return policy == QueueFull::block ? "block" : "discard";
}

std::string describe(const Qos& qos)
{
  const bool block = qos.queue_full == QueueFull::block;
  return "QoS: subscriber queue of " + std::to_string(qos.queue_capacity) +
         " messages; when full (--iox-queue-full " + queue_full_name(qos.queue_full) + ") " +
         (block ? "the publisher waits for the subscriber (WAIT_FOR_CONSUMER/BLOCK_PRODUCER)"
                : "the oldest queued message is discarded and counted as loss "
                  "(DISCARD_OLDEST_DATA)") +
         "; history request " + std::to_string(qos.history_request) +
         " for data, back channel history " + std::to_string(qos.back_channel_history);
}

} // namespace netprof::iox_parts
