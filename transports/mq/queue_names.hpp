#pragma once

// The names of a run's queues. --mq NAME gives the publisher's queue /netprof-NAME (every
// subscriber writes to it) and subscriber ID's queue /netprof-NAME:ID (only the publisher
// writes to it). NAME cannot hold ':', so no run's queue is another run's.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace netprof::mq {

// Throws UsageError unless NAME is 1 to 200 of [A-Za-z0-9._-], not starting with '.'.
void check_run_name(const std::string& name);

std::string publisher_queue(const std::string& name);                    // "/netprof-NAME"
std::string subscriber_queue(const std::string& name, std::uint32_t id); // "/netprof-NAME:ID"
// What every subscriber queue of the run starts with, without the '/': "netprof-NAME:".
std::string subscriber_queue_prefix(const std::string& name);

// subscriber_queue() into a fixed buffer, for the publisher's measured loop (no allocation):
// the run's prefix is written once, the id on each call.
class SubscriberQueueName {
public:
  explicit SubscriberQueueName(const std::string& name);
  const char* for_id(std::uint32_t id) noexcept;

private:
  std::array<char, 256> m_text{};
  std::size_t m_prefix_length = 0;
};

} // namespace netprof::mq
