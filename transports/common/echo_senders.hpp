#pragma once

#include <netprof/transport.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace netprof::transport_common {

// Who sent an echo through a broker, as the channel (topic) it came on tells: each subscriber
// publishes its echoes to PREFIX + its own id, so a publisher subscribed to every such channel
// knows the sender by the name. Each new id gets the next PeerHandle (1, 2, ...).
class EchoSenders {
public:
  // More subscribers than anyone runs: a stranger inventing ids cannot grow the list further.
  static constexpr std::size_t most = 4096;

  EchoSenders() = default;
  explicit EchoSenders(std::string echo_prefix);

  // The sender of what came on `channel`: none when the channel is not an echo channel, or when
  // `most` ids are known already (or no memory is left for one more).
  PeerHandle of(std::string_view channel) noexcept;

private:
  std::string m_prefix;
  std::vector<std::string> m_ids;
};

} // namespace netprof::transport_common
