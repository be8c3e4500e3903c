#pragma once

#include "core/protocol/control_authentication.hpp"
#include "core/protocol/outgoing_message.hpp"
#include "core/roles/joining.hpp"
#include "core/roles/subscriber_run.hpp"

#include <netprof/clock.hpp>

#include <cstdint>
#include <span>

namespace netprof {

// --count-received in a stream: the publisher stops once every subscriber has received the
// run's count, and only a subscriber knows what it received. So it says so (a progress
// message, sealed under --key-file) as soon as it has, and again every repeat_interval until
// the END, since a datagram may be lost. In ping-pong the echoes tell the publisher, and
// nothing is sent. Decides and builds; the subscriber sends.
class ProgressReport {
public:
  static constexpr Nanoseconds repeat_interval = std::chrono::milliseconds(50);

  explicit ProgressReport(const ControlAuthentication& authentication);

  // A new run: its description says whether it wants reports, and of what count.
  void start_run(const SubscriberRun& run) noexcept;

  // Inline: the subscriber asks after every measured message.
  bool due(const SubscriberRun& run, Clock::time_point now) const noexcept
  {
    return m_count_wanted != 0 && run.sequences.unique() >= m_count_wanted && !run.end_received &&
           now - m_last_sent >= repeat_interval;
  }

  // The report of `run` to send at once.
  std::span<const std::byte> message(const SubscriberRun& run, const Joining& joining,
                                     Clock::time_point now) noexcept;

private:
  const ControlAuthentication& m_authentication;
  OutgoingMessage m_message;
  std::uint64_t m_count_wanted = 0; // 0: this run wants no reports
  Clock::time_point m_last_sent{};
};

} // namespace netprof
