#pragma once

#include "core/measuring/echo_poll_cadence.hpp"
#include "core/measuring/echo_timing.hpp"
#include "core/measuring/interval_meter.hpp"
#include "core/process/stop_flag.hpp"
#include "core/protocol/outgoing_message.hpp"
#include "core/roles/live_status.hpp"
#include "core/roles/membership.hpp"
#include "core/roles/role_settings.hpp"
#include "core/scheduling/pace_wait.hpp"
#include "core/scheduling/waiting.hpp"

#include <netprof/clock.hpp>
#include <netprof/histogram.hpp>
#include <netprof/pacer.hpp>
#include <netprof/send_accounting.hpp>
#include <netprof/transport.hpp>

#include <cstdint>
#include <optional>

namespace netprof {

struct PhaseRun; // phase_run.hpp

// What the send loop sent, counted as it went.
struct SendTally {
  std::uint64_t sent = 0; // measured data messages
  std::uint64_t probes_sent = 0;
  // The measured phase's sends, attempt by attempt, with why the refused ones were refused.
  SendAccounting accounting;
  // Attempts the transport pushed back in the warm-up (the measured phase's: accounting).
  std::uint64_t warmup_pushed_back = 0;
  // Lent buffers the payload was written into in the measured phase (--payload-fill): under
  // once, only the buffers lent for the first time; every message's under every-message.
  std::uint64_t payload_writes = 0;
  // Measured ping-pong messages sent on the transport's thread that delivered the last echo
  // (SendLoop::relay_next_probe).
  std::uint64_t relayed = 0;
  // True once a send was given up because the transport pushed back for --wait on end.
  bool stalled = false;
};

// The publisher's data phases: the warm-up (not counted) and the measured phase, paced by
// --send-hz or as fast as the transport takes them, with probes among the data. In ping-pong
// each probe's echoes are awaited before the next message; in a stream they are polled for
// between sends. A back-pressured transport is retried, draining the back channel meanwhile.
class SendLoop {
public:
  SendLoop(const SendSettings& settings, Endpoint& endpoint, Waiter& waiter, const StopFlag& stop,
           LiveCounters& live, Membership& members, EchoTimer& echoes, std::uint64_t run_id);

  // --interval: the measured phase closes its intervals into `meter` (null: none).
  void measure_intervals(IntervalMeter* meter) noexcept { m_intervals = meter; }

  // Runs one phase to its end (time, count or a stop request); false on a transport failure.
  // The measured phase closes the membership's admission when it starts.
  bool run_phase(bool warmup);

  const SendTally& tally() const noexcept { return m_tally; }
  // With --send-hz: how late each measured message left, from its due time to its send.
  const Histogram& pacer_lateness() const noexcept { return m_lateness; }
  // Whether the transport lent the memory data messages were written into (MessageLender).
  bool lent() const noexcept { return m_lender != nullptr; }
  // --fanout round-robin dealt by the transport (MessageDealer): null otherwise. END goes
  // through it too, so that it follows each subscriber's share.
  MessageDealer* dealer() const noexcept { return m_dealer; }
  // Ping-pong, called on a transport's own thread that delivered messages (a DDS listener)
  // while the core's thread waits for the probe's echoes: when they are all in, sends the next
  // message from here, as ddsperf's ping answers in its listener, so that waking the core's
  // thread is neither in the next round trip nor competing with it for the CPUs. True when it
  // sent; false when the core's thread must act (nothing to relay now, the phase is over, the
  // transport pushed back: the core's thread retries, as it can wait for room; or the send
  // failed: the phase ends).
  bool relay_next_probe() noexcept;

  // The measured phase's start on the publisher's clock; the epoch until it began.
  Clock::time_point measure_start() const noexcept { return m_measure_start; }
  // Its length: to its end, or to its last message sent when a failure or a stop request cut it
  // short; 0 until it ended.
  double measured_seconds() const noexcept;

private:
  enum class Turn { send, stop, fail };
  // What became of a phase's next message: `pushed_back` only when it could not wait for room.
  enum class Next { sent, phase_over, pushed_back, failed };

  // Sends the phase's messages to its end; false on a transport failure.
  bool send_phase(PhaseRun& phase);
  // Sends the phase's next message, waiting for its turn and for room (unless not `may_wait`).
  Next send_next(PhaseRun& phase, bool may_wait) noexcept;
  // --count-received and every member has its count (never in the warm-up).
  bool phase_counted_out(const PhaseRun& phase) noexcept;

  Turn wait_for_turn(const Pacer& pacer, std::uint64_t index, bool counted,
                     Clock::time_point end_time) noexcept;
  // Sent, or failed; pushed back only when it may not wait for room (then nothing was sent).
  SendResult send_data(bool warmup, bool probe, std::uint64_t sequence, Clock::time_point intended,
                       Clock::time_point now, bool may_wait) noexcept;
  // After each message sent: waits for a ping-pong's echoes, or looks for a stream's.
  bool look_for_echoes(PhaseRun& phase) noexcept;
  // A stream's look for echoes once one is due (out of line: most messages only ask).
  [[gnu::noinline]] bool look_now(Clock::time_point now) noexcept;
  // Ping-pong: waits for the probe out to be answered or to time out (and for the probes
  // relayed meanwhile, relay_next_probe).
  bool wait_for_echoes(PhaseRun& phase) noexcept;
  // --count-received: every member has `count` measured messages (ping-pong: round trips).
  bool each_received(std::uint64_t count) noexcept;
  // Sent, or failed (a transport error, or pushed back until --wait ran out).
  SendResult send_with_retry(std::span<const std::byte> message, bool counted) noexcept;
  // The rest of send_with_retry, after a first attempt that did not send (out of line: every
  // message passes the first attempt, few come here).
  [[gnu::noinline]] bool retry_pushed_back(std::span<const std::byte> message, bool counted,
                                           SendResult result) noexcept;
  // --fanout round-robin: picks the member this message goes to (m_target); none is fine (no
  // member to send to: nobody hears it). Returns how many echoes a probe sent now is owed.
  std::uint32_t deal() noexcept;
  // How many echoes the probe out now waits for.
  std::size_t echoes_owed() const noexcept;
  // One call to the transport, counted in the send accounting when `counted` (measured phase).
  SendResult attempt(std::span<const std::byte> message, bool counted) noexcept;
  // One attempt through the transport's lender: the message written into a loan, committed.
  SendOutcome attempt_lent(std::span<const std::byte> message, bool counted) noexcept;
  IntervalTotals interval_totals() const noexcept;

  const SendSettings m_settings; // a copy: read on every message
  Endpoint& m_endpoint;
  MessageLender* const m_lender; // asked once, as the endpoint opened; null: it does not lend
  // --fanout round-robin: the endpoint's way to send to one peer; null under --fanout all.
  PeerSender* const m_peer_sender;
  // --fanout round-robin on a transport that deals for itself; null otherwise.
  MessageDealer* const m_dealer;
  Member* m_target = nullptr; // round-robin: whom the message being sent goes to
  Waiter& m_waiter;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  Membership& m_members;
  EchoTimer& m_echoes;
  const bool m_ping_pong;
  const std::uint16_t m_probe_flags; // probe, and full_echo under --echo full
  OutgoingMessage m_data;
  EchoPollCadence m_echo_looks;
  HybridMargin m_pace_margin;
  Histogram m_lateness;
  SendTally m_tally;
  IntervalMeter* m_intervals = nullptr;
  // The phase whose next probe relay_next_probe may send: set only while the core's thread
  // waits for echoes, and read by the transport's thread only while that wait lends it the sink.
  PhaseRun* m_relaying = nullptr;
  bool m_relay_failed = false; // a relayed send failed: the phase ends as on a failed send
  Clock::time_point m_measure_start{};
  Clock::time_point m_measure_end{};
};

} // namespace netprof
