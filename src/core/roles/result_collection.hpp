#pragma once

#include "core/process/stop_flag.hpp"
#include "core/protocol/control_sender.hpp"
#include "core/roles/membership.hpp"

#include <netprof/clock.hpp>
#include <netprof/config.hpp>
#include <netprof/report.hpp>
#include <netprof/transport.hpp>
#include <netprof/wire.hpp>

#include <cstdint>
#include <span>

namespace netprof {

// The publisher's last phase: END, repeated because it may be lost, each copy carrying the
// total sent; every copy that reaches a subscriber brings its final counters back.
class ResultCollection {
public:
  ResultCollection(WaitStrategy wait_strategy, Endpoint& endpoint, MessageSink& sink,
                   ControlSender& control, const StopFlag& stop, std::uint64_t run_id) noexcept
      : m_wait_strategy(wait_strategy), m_endpoint(endpoint), m_sink(sink), m_control(control),
        m_stop(stop), m_run_id(run_id)
  {
  }

  // --fanout round-robin dealt by the transport (MessageDealer): each END is dealt too, and
  // repeated until every subscriber was dealt one after its share; a subscriber still working
  // through a backlog of its share (heard within the last second) holds the collection open, up
  // to `drain_limit`. A null dealer: END goes to everyone through send().
  struct Dealing {
    MessageDealer* dealer = nullptr;
    Nanoseconds drain_limit{};
  };

  // Sends END until every member's counters came (and no candidate is left to prove itself
  // with its own) or the collection time is up; false on a transport failure.
  bool collect(std::uint64_t sent, const Membership& members, const Dealing& dealing);

  // Decodes final counters that could answer our END into `counters`, and the addendum after
  // them when they carry one; false when they cannot (another run's, malformed, or answering
  // an END we did not send).
  bool plausible(const wire::Header& header, std::span<const std::byte> payload,
                 wire::SubscriberCounters& counters,
                 std::optional<wire::FinalAddendum>& addendum) const noexcept;

  static void record(Member& member, const wire::SubscriberCounters& counters,
                     std::optional<wire::FinalAddendum> addendum, bool departing) noexcept
  {
    member.final_counters = MemberCounters{true, departing, counters, addendum};
  }

private:
  const WaitStrategy m_wait_strategy;
  Endpoint& m_endpoint;
  MessageSink& m_sink;
  ControlSender& m_control;
  const StopFlag& m_stop;
  const std::uint64_t m_run_id;
  bool m_collecting = false;
  std::uint64_t m_sent = 0;
};

// How the run's measured phase looked to the publisher, for each member's figures.
struct MeasuredPhase {
  std::uint64_t sent = 0;
  std::uint64_t probes_sent = 0;
  Clock::time_point start{}; // the epoch if it never began
  // --fanout round-robin: each member is charged with what was dealt to it, not with `sent`.
  bool round_robin = false;
  // ... dealt by the transport (MessageDealer): nobody knows what went to each, so a member is
  // charged with what it received, and the loss is the run's total (dealt_loss).
  bool dealt_by_transport = false;
};

// A member's figures and outcome as the report shows them.
SubscriberResult member_result(const Member& member, const MeasuredPhase& phase);

} // namespace netprof
