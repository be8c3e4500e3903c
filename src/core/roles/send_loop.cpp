#include "core/roles/send_loop.hpp"

#include "core/roles/phase_run.hpp"

#include <netprof/errors.hpp>
#include <netprof/records.hpp>

#include <algorithm>

namespace netprof {

namespace {

PeerSender* peer_sender_for(Fanout fanout, Endpoint& endpoint)
{
  return fanout == Fanout::all ? nullptr : dynamic_cast<PeerSender*>(&endpoint);
}

// Under round-robin, a transport the core cannot deal through may deal for itself.
MessageDealer* dealer_for(Fanout fanout, Endpoint& endpoint, const PeerSender* peer_sender)
{
  if (fanout == Fanout::all || peer_sender != nullptr)
    return nullptr;
  auto* dealer = dynamic_cast<MessageDealer*>(&endpoint);
  if (dealer == nullptr) // the command line refuses this; a transport whose flags lie gets here
    throw TransportError(endpoint.facts().transport +
                         ": --fanout round-robin needs an endpoint that sends to one peer");
  return dealer;
}

} // namespace

SendLoop::SendLoop(const SendSettings& settings, Endpoint& endpoint, Waiter& waiter,
                   const StopFlag& stop, LiveCounters& live, Membership& members, EchoTimer& echoes,
                   std::uint64_t run_id)
    : m_settings(settings), m_endpoint(endpoint), m_lender(dynamic_cast<MessageLender*>(&endpoint)),
      m_peer_sender(peer_sender_for(settings.fanout, endpoint)),
      m_dealer(dealer_for(settings.fanout, endpoint, m_peer_sender)), m_waiter(waiter),
      m_stop(stop), m_live(live), m_members(members), m_echoes(echoes),
      m_ping_pong(settings.pacing.mode == Mode::ping_pong),
      m_probe_flags(static_cast<std::uint16_t>(
          wire::flags::probe |
          (settings.data.echo == EchoSize::full ? wire::flags::full_echo : 0))),
      m_data(settings.data.payload_size)
{
  if (settings.data.num_vars > 0)
    RecordLayout(settings.data.payload_size, settings.data.num_vars).write(m_data.payload());
  else
    std::fill(m_data.payload().begin(), m_data.payload().end(), std::byte{0x5a});
  // The header's fields that never change are encoded once; each message rewrites the rest
  // (restamped), and nothing else of m_data is written from here on.
  wire::Header header;
  header.kind = wire::MessageKind::data;
  header.run_id = run_id;
  header.record_count = settings.data.num_vars;
  m_data.with_header(header);
  if (auto* keeper = dynamic_cast<PayloadKeeper*>(&m_endpoint))
    keeper->keep_payload(m_data.payload());
}

double SendLoop::measured_seconds() const noexcept
{
  return m_measure_end > m_measure_start ? to_seconds(m_measure_end - m_measure_start) : 0.0;
}

bool SendLoop::run_phase(bool warmup)
{
  const auto start = Clock::now();
  m_live.enter(warmup ? LivePhase::warming_up : LivePhase::measuring);
  if (!warmup) {
    m_measure_start = start;
    m_members.start_measuring(start);
    if (m_intervals != nullptr)
      m_intervals->start(start);
  }
  PhaseRun phase(m_settings, m_ping_pong, warmup, start);
  m_echo_looks.restart(start);
  const bool ok = send_phase(phase) && m_endpoint.flush().result != SendResult::failed;
  if (!warmup) {
    // A phase cut short ends when sending stopped: by a failure (a keep-all subscriber that
    // froze for good outlasted --wait), not when the publisher gave up waiting; by a stop
    // request, not when the loop noticed it. The figures then describe the messages that went
    // out, over the time they took.
    const bool cut_short = !ok || m_stop.requested();
    m_measure_end = cut_short ? phase.last_send : Clock::now();
    m_live.enter(LivePhase::ending);
    if (m_intervals != nullptr)
      m_intervals->finish(std::max(m_measure_end, m_measure_start), interval_totals());
  }
  return ok;
}

bool SendLoop::send_phase(PhaseRun& phase)
{
  for (;;) {
    const Next next = send_next(phase, true);
    if (next != Next::sent)
      return next == Next::phase_over;
    if (!look_for_echoes(phase))
      return false;
    if (phase_counted_out(phase))
      return true;
  }
}

SendLoop::Next SendLoop::send_next(PhaseRun& phase, bool may_wait) noexcept
{
  if (m_stop.requested() || (phase.count && phase.next_index >= *phase.count))
    return Next::phase_over;
  const Pacer& pacer = phase.pacer;
  if (pacer.paced()) {
    const Turn turn =
        wait_for_turn(pacer, phase.next_index, phase.count.has_value(), phase.end_time);
    if (turn != Turn::send)
      return turn == Turn::fail ? Next::failed : Next::phase_over;
  }
  const auto now = Clock::now();
  if (!phase.count && now >= phase.end_time)
    return Next::phase_over;
  // Paced, the stamp is when the message was due, however late it went (no coordinated
  // omission); unpaced, it is now.
  const auto intended = pacer.paced() ? pacer.due(phase.next_index) : now;
  // On the pacer's schedule, not the clock: a message sent a little late must not push the
  // probe schedule past the next message's due time (at --send-hz equal to --probe-hz that
  // skipped every other probe after each late send).
  const bool probe = phase.probes.due(intended);
  const SendResult sent = send_data(phase.warmup, probe, phase.next_index, intended, now, may_wait);
  if (sent != SendResult::sent)
    return sent == SendResult::back_pressured ? Next::pushed_back : Next::failed;
  ++phase.next_index;
  phase.last_send = now;
  if (!phase.warmup) {
    if (pacer.paced())
      m_lateness.record((now - intended).count());
    ++m_tally.sent;
    if (probe)
      ++m_tally.probes_sent;
    LiveCounters::bump(m_live.sent);
    // A clock already read and one comparison: closing hands the interval to the reporter.
    if (m_intervals != nullptr && m_intervals->due(now))
      m_intervals->close(now, interval_totals());
  }
  return Next::sent;
}

bool SendLoop::phase_counted_out(const PhaseRun& phase) noexcept
{
  const std::optional<std::uint64_t>& count = m_settings.phases.count_received;
  return !phase.warmup && count && each_received(*count);
}

bool SendLoop::relay_next_probe() noexcept
{
  if (m_relaying == nullptr || m_echoes.current_echoes() < echoes_owed() ||
      phase_counted_out(*m_relaying))
    return false;
  m_echoes.stop_awaiting();
  // Not sent (pushed back, or the phase is over): the core's thread, woken, takes it from here
  // as if the probe had just been answered, and retries or ends the phase; failed: it ends the
  // phase as its own failed send would.
  const Next next = send_next(*m_relaying, false);
  m_relay_failed = next == Next::failed;
  if (next != Next::sent)
    return false;
  m_tally.relayed += m_relaying->warmup ? 0 : 1;
  return true;
}

SendLoop::Turn SendLoop::wait_for_turn(const Pacer& pacer, std::uint64_t index, bool counted,
                                       Clock::time_point end_time) noexcept
{
  const auto due = pacer.due(index);
  if (!counted && due >= end_time)
    return Turn::stop;
  if (m_endpoint.flush().result == SendResult::failed)
    return Turn::fail;
  const auto never_done = [] { return false; };
  for (auto now = Clock::now(); !m_stop.requested(); now = Clock::now()) {
    const PaceStep step = next_pace_step(m_settings.pacing.pace, now, due, m_pace_margin.margin());
    if (step.action == PaceAction::send)
      return Turn::send;
    const bool ok = step.action == PaceAction::sleep ? m_waiter.wait_until(step.until, never_done)
                                                     : m_waiter.poll();
    if (!ok)
      return Turn::fail;
    if (step.action == PaceAction::sleep)
      m_pace_margin.woke(step.until, Clock::now());
  }
  return Turn::stop;
}

SendResult SendLoop::send_data(bool warmup, bool probe, std::uint64_t sequence,
                               Clock::time_point intended, Clock::time_point now,
                               bool may_wait) noexcept
{
  const wire::DataStamp stamp{
      static_cast<std::uint16_t>((probe ? m_probe_flags : 0) | (warmup ? wire::flags::warmup : 0)),
      sequence, to_wire_ns(intended), to_wire_ns(now)};
  const std::uint32_t owed_echoes = deal();
  const std::span<const std::byte> message = m_data.restamped(stamp);
  const SendResult sent = may_wait ? send_with_retry(message, !warmup) : attempt(message, !warmup);
  if (sent == SendResult::back_pressured)
    return sent; // only when it may not wait: nothing was sent, nothing is awaited
  if (sent == SendResult::sent && !warmup && m_target != nullptr) {
    ++m_target->messages_dealt;
    if (probe)
      ++m_target->probes_dealt;
  }
  if (sent == SendResult::sent && probe) {
    // Remembered after the send, which keeps this work out of the round trip: echoes are
    // handled only inside receive(), and nothing calls it between a successful send and here.
    // (A probe still being retried is not out yet, so the echoes handled meanwhile are older.)
    m_echoes.probe_sent(stamp, owed_echoes, now + m_settings.probe_timeout);
    m_echo_looks.probe_sent(now);
  }
  if (sent != SendResult::sent || (probe && m_endpoint.flush().result == SendResult::failed)) {
    m_echoes.stop_awaiting();
    return SendResult::failed;
  }
  return SendResult::sent;
}

bool SendLoop::look_for_echoes(PhaseRun& phase) noexcept
{
  if (m_ping_pong)
    return wait_for_echoes(phase);
  const std::uint64_t index = phase.next_index - 1; // the message just sent
  const Clock::time_point now = phase.last_send;
  // While a probe is out, as often as its timing needs (EchoPollCadence: every couple of
  // microseconds, further apart as the probe ages); otherwise only now and then, for late
  // joiners.
  const bool due = m_echoes.awaiting() ? m_echo_looks.due(now) : (index & 63) == 0;
  return !due || look_now(now);
}

bool SendLoop::look_now(Clock::time_point now) noexcept
{
  m_echo_looks.looked(now);
  if (!m_waiter.poll())
    return false;
  if (m_echoes.awaiting() &&
      (m_echoes.current_echoes() >= echoes_owed() || now >= m_echoes.current_deadline()))
    m_echoes.stop_awaiting();
  return true;
}

bool SendLoop::each_received(std::uint64_t count) noexcept
{
  // A probe's echo is a round trip the publisher counts itself; a stream's subscribers say
  // when they have their count (ProgressReport), so there is nothing new between reports.
  if (m_ping_pong)
    return m_members.each_echoed(count);
  return m_members.take_progress_news() && m_members.each_reported(count);
}

bool SendLoop::wait_for_echoes(PhaseRun& phase) noexcept
{
  // Unpaced, with each message going to every member, a transport that delivers on a thread of
  // its own (a DDS listener) may send the next probe from there (relay_next_probe), as
  // ddsperf's ping does: this thread then waits on, for the newest probe.
  const bool may_relay = !phase.pacer.paced() && m_peer_sender == nullptr && m_dealer == nullptr;
  bool ok = true;
  for (std::uint64_t next = phase.next_index;; next = phase.next_index) {
    m_relaying = may_relay ? &phase : nullptr;
    ok = m_waiter.wait_until(m_echoes.current_deadline(), [&] {
      return phase.next_index != next || m_echoes.current_echoes() >= echoes_owed();
    });
    m_relaying = nullptr;
    if (!ok || phase.next_index == next)
      break;
  }
  m_echoes.stop_awaiting();
  return ok && !m_relay_failed;
}

SendResult SendLoop::send_with_retry(std::span<const std::byte> message, bool counted) noexcept
{
  // The first attempt reads no clock: it sits between the probe's stamp and its send.
  const SendResult result = attempt(message, counted);
  if (result == SendResult::sent || retry_pushed_back(message, counted, result))
    return SendResult::sent;
  return SendResult::failed;
}

bool SendLoop::retry_pushed_back(std::span<const std::byte> message, bool counted,
                                 SendResult result) noexcept
{
  // A back-pressured transport is waited on, draining the back channel meanwhile, but never
  // forever: a stuck peer must not hang the publisher.
  const auto give_up = Clock::now() + m_settings.back_pressure_limit;
  for (;; result = attempt(message, counted)) {
    if (result == SendResult::sent)
      return true;
    if (result == SendResult::failed || m_stop.requested())
      return false;
    if (Clock::now() >= give_up) {
      m_tally.stalled = true;
      return false;
    }
    if (!m_waiter.wait_for_room())
      return false;
  }
}

IntervalTotals SendLoop::interval_totals() const noexcept
{
  IntervalTotals totals;
  totals.messages = m_tally.sent;
  totals.payload_bytes = m_tally.sent * m_settings.data.payload_size;
  totals.echoes = m_echoes.echoes();
  totals.sends = m_tally.accounting;
  return totals;
}

std::size_t SendLoop::echoes_owed() const noexcept
{
  // Under --fanout all, a member that joined while the probe was out is waited for too.
  return m_peer_sender != nullptr || m_dealer != nullptr ? m_echoes.current_expected()
                                                         : m_members.size();
}

std::uint32_t SendLoop::deal() noexcept
{
  if (m_dealer != nullptr) // whoever the transport picks echoes it
    return m_members.size() > 0 ? 1 : 0;
  if (m_peer_sender == nullptr)
    return static_cast<std::uint32_t>(m_members.size());
  m_target = m_members.next_in_turn();
  return m_target != nullptr ? 1 : 0;
}

SendResult SendLoop::attempt(std::span<const std::byte> message, bool counted) noexcept
{
  SendOutcome outcome;
  if (m_peer_sender != nullptr)
    outcome = m_target != nullptr ? m_peer_sender->send_to(m_target->peer, message) : SendOutcome{};
  else if (m_dealer != nullptr)
    outcome = m_dealer->deal(message);
  else
    outcome = m_lender != nullptr ? attempt_lent(message, counted) : m_endpoint.send(message);
  if (!counted && outcome.result == SendResult::back_pressured)
    ++m_tally.warmup_pushed_back;
  if (counted)
    m_tally.accounting.count(outcome);
  return outcome.result;
}

SendOutcome SendLoop::attempt_lent(std::span<const std::byte> message, bool counted) noexcept
{
  const Loan loan = m_lender->claim(message.size());
  if (loan.bytes.empty()) {
    // A lender that refuses must say how; one that does not is taken as failing.
    return {loan.refusal != SendResult::sent ? loan.refusal : SendResult::failed, loan.cause};
  }
  if (loan.bytes.size() != message.size()) { // a broken lender: nothing sent, the run ends
    m_lender->abandon(loan);
    return {SendResult::failed, SendCause::error};
  }
  if (write_into_loan(loan, message, m_settings.data.payload_fill) && counted)
    ++m_tally.payload_writes;
  const SendResult result = m_lender->commit(loan);
  if (result != SendResult::sent)
    return {result, SendCause::error};
  return {};
}

} // namespace netprof
