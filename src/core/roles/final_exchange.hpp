#pragma once

#include "core/protocol/control_authentication.hpp"
#include "core/protocol/outgoing_message.hpp"
#include "core/roles/joining.hpp"
#include "core/roles/subscriber_run.hpp"

#include <netprof/clock.hpp>
#include <netprof/wire.hpp>

#include <cstdint>
#include <span>

namespace netprof {

// What an END did to the run.
enum class EndTaking {
  refused,  // impossible, conflicting, or without the run's end token: counted as rejected
  taken,    // the run's end stands; the final counters answer it unless already acknowledged
  restored, // taken, and the END that data followed was real after all: one rejection less
};

// What a final_ack did.
enum class FinalAckTaking { not_ours, accepted, refused };

// The subscriber's end of the run, as ResultCollection is the publisher's: an END tells the
// count the publisher sent; the final counters answer it (sealed under --key-file, with the
// process's usage); a final_ack of those ends the run. Decides and builds; the subscriber
// sends.
class FinalExchange {
public:
  explicit FinalExchange(const ControlAuthentication& authentication);

  EndTaking on_end(const wire::Header& header, SubscriberRun& run, Clock::time_point now) noexcept;
  FinalAckTaking on_final_ack(const wire::Header& header, SubscriberRun& run,
                              Joining& joining) noexcept;

  // The final counters of `run` to send at once; `rejected` counts over the whole process.
  std::span<const std::byte> counters(const SubscriberRun& run, const Joining& joining,
                                      std::uint64_t rejected, const wire::ProcessUsage& usage,
                                      std::uint16_t flags, Clock::time_point now) noexcept;

private:
  const ControlAuthentication& m_authentication;
  OutgoingMessage m_message;
};

} // namespace netprof
