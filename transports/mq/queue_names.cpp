#include "queue_names.hpp"

#include "common/pair_names.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace netprof::mq {

void check_run_name(const std::string& name)
{
  if (!transport_common::is_plain_name(name))
    throw UsageError("bad --mq value '" + name +
                     "': expected a name of 1 to 200 letters, digits, '.', '_' or '-' (not "
                     "starting with '.'); the queues are /netprof-NAME and /netprof-NAME:ID");
}

std::string publisher_queue(const std::string& name)
{
  return "/netprof-" + name;
}

std::string subscriber_queue_prefix(const std::string& name)
{
  return "netprof-" + name + ":";
}

std::string subscriber_queue(const std::string& name, std::uint32_t id)
{
  return publisher_queue(name) + ":" + std::to_string(id);
}

SubscriberQueueName::SubscriberQueueName(const std::string& name)
{
  const std::string prefix = publisher_queue(name) + ":";
  m_prefix_length = std::min(prefix.size(), m_text.size() - 16);
  std::memcpy(m_text.data(), prefix.data(), m_prefix_length);
}

const char* SubscriberQueueName::for_id(std::uint32_t id) noexcept
{
  char* const first = m_text.data() + m_prefix_length;
  char* const end = m_text.data() + m_text.size() - 1;
  *std::to_chars(first, end, id).ptr = '\0';
  return m_text.data();
}

} // namespace netprof::mq
