#pragma once

// Where both roles receive: one place stamps, decodes and authenticates every message before
// the publisher or the subscriber reads it, and counts what it refused.

#include "core/protocol/control_authentication.hpp"
#include "core/protocol/foreign_runs.hpp"
#include "core/protocol/message_opening.hpp"

#include <netprof/clock.hpp>
#include <netprof/transport.hpp>

#include <span>

namespace netprof {

// The MessageSink of a role (`Role` derives from it): a message that opens is handed to
// `Role::on_opened(opened, delivery, arrived)`; one that does not is counted in `m_refused`.
// Called statically, not virtually: every data message and echo passes here.
template <class Role> class OpeningSink : public MessageSink {
public:
  void on_message(const Delivery& delivery) noexcept final
  {
    // Before anything else: an echo's round trip (the publisher's t4) and a probe's arrival
    // (NTP's t2 at the subscriber) end when the message arrives, not once it is decoded.
    const auto arrived = Clock::now();
    m_latest_arrival = arrived;
    OpenedMessage opened;
    const Opening opening = m_opener.open(delivery.bytes, opened);
    if (opening != Opening::readable) {
      m_refused.count(opening);
      return;
    }
    static_cast<Role&>(*this).on_opened(opened, delivery, arrived);
  }

protected:
  // The role's members that seal control messages are constructed after this, so they may hold
  // on to `m_authentication`.
  OpeningSink(std::span<const std::byte> shared_secret, MessageOpener::Reader reader)
      : m_authentication(shared_secret), m_opener(m_authentication, reader)
  {
  }

  const ControlAuthentication m_authentication;
  const MessageOpener m_opener;
  // The last message's arrival: the role's Waiter judges soft deadlines by it (waiting.hpp).
  Clock::time_point m_latest_arrival{};
  Refusals m_refused;
  ForeignRuns m_foreign; // messages of another run, among the rejected
};

} // namespace netprof
