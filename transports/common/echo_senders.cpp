#include "echo_senders.hpp"

#include <utility>

namespace netprof::transport_common {

EchoSenders::EchoSenders(std::string echo_prefix) : m_prefix(std::move(echo_prefix))
{
  m_ids.reserve(64);
}

PeerHandle EchoSenders::of(std::string_view channel) noexcept
{
  if (!channel.starts_with(m_prefix))
    return {};
  const std::string_view id = channel.substr(m_prefix.size());
  for (std::size_t i = 0; i < m_ids.size(); ++i)
    if (m_ids[i] == id)
      return PeerHandle{i + 1};
  if (m_ids.size() >= most)
    return {};
  try {
    m_ids.emplace_back(id); // once per subscriber, when its hello arrives
  } catch (...) {
    return {};
  }
  return PeerHandle{m_ids.size()};
}

} // namespace netprof::transport_common
