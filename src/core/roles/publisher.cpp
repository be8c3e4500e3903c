#include "core/roles/publisher.hpp"

#include "core/measuring/echo_timing.hpp"
#include "core/measuring/interval_reporter.hpp"
#include "core/protocol/address_proof.hpp"
#include "core/protocol/control_sender.hpp"
#include "core/protocol/counter_plausibility.hpp"
#include "core/protocol/run_description.hpp"
#include "core/roles/membership.hpp"
#include "core/roles/opening_sink.hpp"
#include "core/roles/result_collection.hpp"
#include "core/roles/role_settings.hpp"
#include "core/roles/send_loop.hpp"
#include "core/roles/verdict.hpp"
#include "core/scheduling/waiting.hpp"

#include <netprof/histogram.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

namespace netprof {

namespace {

constexpr std::size_t distribution_bins = 16;
// As often as a subscriber says hello.
constexpr auto invitation_interval = std::chrono::milliseconds(100);

// What the publisher does about one message from a subscriber, once decided.
struct Reply {
  bool rejected = false;
  bool adopt_sender = false;               // start sending to the message's sender
  std::optional<wire::MessageKind> answer; // sent to the sender's id, after adopting it

  static Reply rejection() noexcept { return Reply{true, false, std::nullopt}; }
  static Reply nothing() noexcept { return Reply{false, false, std::nullopt}; }
  static Reply answering(wire::MessageKind kind, bool adopt_sender) noexcept
  {
    return Reply{false, adopt_sender, kind};
  }
};

// The publisher's whole test, in phases: wait for subscribers (membership), warm up and measure
// (the send loop), end and collect the final counters (result collection). This class routes
// the back channel to those pieces, carries out their decisions on the endpoint, and hands
// the facts to the verdict.
class Publisher final : public OpeningSink<Publisher> {
public:
  Publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live)
      : OpeningSink(config.shared_secret, MessageOpener::Reader::publisher),
        m_report_config(config), m_settings(publisher_settings(config)), m_endpoint(endpoint),
        m_stop(stop), m_live(live), m_run_id(random_nonzero_u64()),
        m_waiter(endpoint, *this, m_settings.wait_strategy, stop),
        m_control(endpoint, m_authentication, m_run_id, m_proof.end_token(), describe_run(config)),
        m_members(m_settings.subscribers),
        m_echoes(live, m_settings.sending.pacing.mode == Mode::ping_pong),
        m_sender(m_settings.sending, endpoint, m_waiter, stop, live, m_members, m_echoes, m_run_id),
        m_collection(m_settings.wait_strategy, endpoint, *this, m_control, stop, m_run_id)
  {
    if (m_settings.interval) {
      m_intervals = std::make_unique<IntervalMeter>(*m_settings.interval);
      m_sender.measure_intervals(m_intervals.get());
      m_echoes.measure_intervals(m_intervals.get());
    }
  }

  RoleResult run();
  void on_opened(const OpenedMessage& opened, const Delivery& delivery,
                 Clock::time_point arrived) noexcept;
  // A stream's echoes are timed where they arrive, and no wait of the publisher's ends on one
  // (its sender only polls for them): only the rest, and a ping-pong's echoes, need the waiting
  // thread now (MessageSink::wants_control). A ping-pong's answered probe does not when the
  // next goes out from here, on the transport's thread (SendLoop::relay_next_probe).
  bool wants_control() noexcept override
  {
    return std::exchange(m_control_wanted, false) && !m_sender.relay_next_probe();
  }

private:
  bool wait_for_subscribers();
  Reply on_hello(const wire::Header& header, PeerHandle sender, Clock::time_point now) noexcept;
  Reply on_echo(const wire::Header& header, std::span<const std::byte> payload,
                Clock::time_point now) noexcept;
  Reply on_final_counters(const wire::Header& header, std::span<const std::byte> payload,
                          Clock::time_point now) noexcept;
  CounterLimits counter_limits(Clock::time_point now) const noexcept;
  PublisherFacts facts(bool subscribers_arrived) const;
  RoleResult make_result(bool subscribers_arrived) const;

  // Only for the report, which shows the settings.
  const RunConfig& m_report_config;
  const PublisherSettings m_settings;
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  const std::uint64_t m_run_id; // 0 means "no run yet" in a subscriber's hello
  const AddressProof m_proof;
  Waiter m_waiter;
  ControlSender m_control;
  Membership m_members;
  EchoTimer m_echoes;
  SendLoop m_sender;
  ResultCollection m_collection;
  std::unique_ptr<IntervalMeter> m_intervals; // --interval
  std::vector<IntervalFigures> m_interval_figures;
  std::uint64_t m_challenges = 0;
  // The payload of a full echo of this run's probes; never matched under --echo record.
  const std::size_t m_full_echo_payload =
      m_settings.sending.data.echo == EchoSize::full
          ? wire::full_echo_payload_size(m_settings.sending.data.payload_size)
          : std::numeric_limits<std::size_t>::max();
  std::uint64_t m_echo_bytes = 0; // of the echoes taken as round trips, headers included
  bool m_transport_failed = false;
  bool m_control_wanted = true; // since wants_control() last asked: a message a wait may end on
  // A ping-pong's echo ends the wait for it; a stream's is only timed where it arrives.
  const bool m_echoes_end_waits = m_settings.sending.pacing.mode == Mode::ping_pong;
};

} // namespace

void Publisher::on_opened(const OpenedMessage& opened, const Delivery& delivery,
                          Clock::time_point arrived) noexcept
{
  const wire::Header& header = opened.header;
  m_control_wanted =
      m_control_wanted || header.kind != wire::MessageKind::echo || m_echoes_end_waits;
  if (of_another_run(header, m_run_id)) {
    // A second run on this medium (its publisher's data, its subscribers' echoes), or a replay:
    // counted, never taken for this run's.
    m_foreign.count(header, header.kind == wire::MessageKind::data ||
                                header.kind == wire::MessageKind::echo);
    ++m_refused.rejected;
    return;
  }
  if (header.sender_id == 0) {
    // On a shared medium the publisher hears its own traffic (its challenges carry no run);
    // anything else from id 0 is another publisher, which is not ours to trust.
    if (header.run_id != m_run_id && header.kind != wire::MessageKind::challenge)
      ++m_refused.rejected;
    return;
  }
  Reply reply = Reply::rejection();
  switch (header.kind) {
  case wire::MessageKind::hello:
    reply = on_hello(header, delivery.sender, arrived);
    break;
  case wire::MessageKind::echo:
    reply = on_echo(header, opened.payload(), arrived);
    break;
  case wire::MessageKind::final_counters:
    reply = on_final_counters(header, opened.payload(), arrived);
    break;
  case wire::MessageKind::progress:
    // Of this run, from a member's own process, and no more than was sent: anything else is
    // refused, so a forged report cannot end the measured phase early.
    if (header.run_id == m_run_id &&
        m_members.on_progress(header.sender_id, wire::instance_tag(header), header.sequence,
                              m_sender.tally().sent, arrived))
      reply = Reply::nothing();
    break;
  default:
    break;
  }
  if (reply.rejected)
    ++m_refused.rejected;
  if (reply.adopt_sender) {
    // --fanout round-robin sends to this handle alone: the member's own process's, not that of
    // a candidate naming its id (a restart not proven yet, or a forgery).
    Member* member = m_members.find(header.sender_id);
    if (member != nullptr && member->instance == wire::instance_tag(header))
      member->peer = delivery.sender;
  }
  if (reply.answer && reply.adopt_sender)
    m_control.adopt_and_send(delivery.sender, *reply.answer, header.sender_id,
                             wire::instance_tag(header));
  else if (reply.answer)
    m_control.send(*reply.answer, header.sender_id, wire::instance_tag(header));
}

Reply Publisher::on_hello(const wire::Header& header, PeerHandle sender,
                          Clock::time_point now) noexcept
{
  if (header.run_id != 0 && header.run_id != m_run_id)
    return Reply::rejection();
  const std::uint32_t instance = wire::instance_tag(header);
  const std::uint64_t cookie = wire::carried_secret(header);
  if (!m_proof.proves(cookie, sender, header.sender_id, instance)) {
    // Nothing of the run goes to an address not proven yet: only a challenge, no larger than
    // the hello. A wrong cookie is forged, or of a publisher this one replaced.
    m_control.challenge(sender, header.sender_id, instance,
                        m_proof.cookie(sender, header.sender_id, instance));
    ++m_challenges;
    return cookie == 0 ? Reply::nothing() : Reply::rejection();
  }
  switch (m_members.on_hello(header.sender_id, instance, m_sender.tally().probes_sent, now,
                             m_sender.tally().sent)) {
  case HelloDecision::reject:
    return Reply::rejection();
  case HelloDecision::acknowledge:
    return Reply::answering(wire::MessageKind::hello_ack, false);
  case HelloDecision::adopt_and_acknowledge:
    break;
  }
  return Reply::answering(wire::MessageKind::hello_ack, true);
}

Reply Publisher::on_echo(const wire::Header& header, std::span<const std::byte> payload,
                         Clock::time_point now) noexcept
{
  // A bare echo (a subscriber that predates the stamps) still times a round trip; any other
  // payload must be exactly the stamps, or under --echo full the stamps and filler as long as
  // the probes (wire.hpp).
  wire::EchoStamps stamps;
  const bool stamped = !payload.empty();
  const std::size_t echo_bytes = wire::header_size + payload.size();
  if (payload.size() == m_full_echo_payload)
    payload = payload.first(wire::echo_stamps_size);
  if (stamped && !wire::decode_echo_stamps(payload, stamps))
    return Reply::rejection();
  ProbeRing::Entry* probe = m_echoes.probe_of(header, m_run_id);
  if (probe == nullptr)
    return Reply::rejection();
  // An echo of a real probe of this run is the proof a late joiner or a restarted process
  // needs: a hello alone admitted neither.
  const ProofDecision proof = m_members.on_proof(header.sender_id, wire::instance_tag(header), now);
  if (proof.member == nullptr)
    return Reply::rejection();
  const bool taken = m_echoes.record(*proof.member, *probe, now, stamped ? &stamps : nullptr);
  if (taken && (header.flags & wire::flags::warmup) == 0)
    m_echo_bytes += echo_bytes; // as echoes_received counts them: the warm-up's apart
  return Reply{!taken, proof.adopt_sender, std::nullopt};
}

Reply Publisher::on_final_counters(const wire::Header& header, std::span<const std::byte> payload,
                                   Clock::time_point now) noexcept
{
  wire::SubscriberCounters counters;
  std::optional<wire::FinalAddendum> addendum;
  if (!m_collection.plausible(header, payload, counters, addendum))
    return Reply::rejection();
  const CounterLimits limits = counter_limits(now);
  const char* why = implausibility(counters, limits);
  if (why == nullptr && addendum && addendum->injected_drops > limits.sent - counters.unique)
    why = "more messages dropped on purpose than were sent and not received";
  if (why != nullptr) {
    if (Member* member = m_members.find(header.sender_id))
      member->refused_counters = why;
    return Reply::rejection();
  }
  // An id we never acknowledged cannot have taken part; one we acknowledged but did not yet
  // believe (a late joiner that echoed no probe) proves itself with these.
  const ProofDecision proof = m_members.on_proof(header.sender_id, wire::instance_tag(header), now);
  if (proof.member == nullptr)
    return Reply::rejection();
  ResultCollection::record(*proof.member, counters, addendum,
                           (header.flags & wire::flags::departing) != 0);
  return Reply::answering(wire::MessageKind::final_ack, proof.adopt_sender);
}

CounterLimits Publisher::counter_limits(Clock::time_point now) const noexcept
{
  CounterLimits limits;
  limits.sent = m_sender.tally().sent;
  limits.probes_sent = m_sender.tally().probes_sent;
  limits.payload_size = m_settings.sending.data.payload_size;
  limits.records_per_message = m_settings.sending.data.num_vars;
  if (m_sender.measure_start() != Clock::time_point{})
    limits.measured_so_far = now - m_sender.measure_start();
  return limits;
}

bool Publisher::wait_for_subscribers()
{
  const auto deadline = Clock::now() + m_settings.wait;
  const std::size_t expected = m_settings.subscribers;
  const auto arrived = [&] { return m_members.size() >= expected; };
  m_live.subscribers_expected.store(static_cast<std::uint32_t>(expected),
                                    std::memory_order_relaxed);
  m_live.enter(LivePhase::waiting_for_subscribers);
  for (auto now = Clock::now(); !arrived() && now < deadline && !m_stop.requested();
       now = Clock::now()) {
    m_live.subscribers_announced.store(static_cast<std::uint32_t>(m_members.size()),
                                       std::memory_order_relaxed);
    m_control.invite();
    if (!m_waiter.wait_until(std::min(now + invitation_interval, deadline), arrived)) {
      m_transport_failed = true;
      return false;
    }
  }
  return arrived();
}

RoleResult run_publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                         LiveCounters& live)
{
  return Publisher(config, endpoint, stop, live).run();
}

RoleResult Publisher::run()
{
  if (!wait_for_subscribers())
    return make_result(false);
  bool ok = !m_settings.sending.phases.warmup_wanted() || m_sender.run_phase(true);
  if (ok && !m_stop.requested()) {
    std::optional<IntervalReporter> reporter;
    if (m_intervals)
      reporter.emplace(*m_intervals, Role::publisher, m_settings.interval_lines);
    ok = m_sender.run_phase(false);
    if (reporter)
      m_interval_figures = reporter->stop();
  }
  if (!ok)
    m_transport_failed = true;
  m_live.enter(LivePhase::ending);
  m_members.close_admission();
  m_echoes.stop_awaiting();
  if (!m_collection.collect(m_sender.tally().sent, m_members,
                            {m_sender.dealer(), m_settings.sending.back_pressure_limit}))
    m_transport_failed = true;
  return make_result(true);
}

PublisherFacts Publisher::facts(bool subscribers_arrived) const
{
  PublisherFacts facts;
  facts.interrupted = m_stop.requested();
  facts.transport_failed = m_transport_failed;
  facts.subscribers_arrived = subscribers_arrived;
  const SendTally& sending = m_sender.tally();
  facts.messages_sent = sending.sent;
  facts.probes_sent = sending.probes_sent;
  facts.echoes = m_echoes.echoes();
  facts.echoes_late = m_echoes.echoes_late();
  facts.pushed_back = sending.accounting.pushed_back;
  facts.warmup_pushed_back = sending.warmup_pushed_back;
  facts.send_stalled = sending.stalled;
  facts.peak_connections = m_endpoint.facts().peak_connections;
  facts.measured_seconds = m_sender.measured_seconds();
  facts.unauthenticated = m_refused.unauthenticated;
  facts.foreign = m_foreign;
  const MeasuredPhase phase{sending.sent, sending.probes_sent, m_sender.measure_start(),
                            m_settings.sending.fanout == Fanout::round_robin,
                            m_sender.dealer() != nullptr};
  facts.dealt_by_transport = phase.dealt_by_transport;
  for (const Member& member : m_members.members())
    facts.subscribers.push_back(member_result(member, phase));
  // Members join in the order their hellos arrived; the report lists them by id.
  std::stable_sort(
      facts.subscribers.begin(), facts.subscribers.end(),
      [](const SubscriberResult& a, const SubscriberResult& b) { return a.id < b.id; });
  return facts;
}

RoleResult Publisher::make_result(bool subscribers_arrived) const
{
  PublisherFacts facts = this->facts(subscribers_arrived);
  RoleResult result;
  apply_verdict(publisher_verdict(facts, verdict_criteria(m_report_config)), result);
  RunReport& report = result.report;
  report.config = m_report_config;
  report.run_id = m_run_id;
  report.messages_sent = facts.messages_sent;
  report.probes_sent = facts.probes_sent;
  report.echoes_received = facts.echoes;
  report.echoes_late = facts.echoes_late;
  report.echo_bytes = m_echo_bytes;
  report.transport_lent = m_sender.lent();
  report.dealt_by_transport = facts.dealt_by_transport;
  report.payload_writes = m_sender.tally().payload_writes;
  report.probes_relayed = m_sender.tally().relayed;
  report.challenges_sent = m_challenges;
  report.send_accounting = m_sender.tally().accounting;
  report.intervals = m_interval_figures;
  report.rtt = m_echoes.rtt().summarize();
  report.rtt_uncorrected = m_echoes.rtt_uncorrected().summarize();
  report.fanout_skew = m_echoes.fanout_skew().summarize();
  report.rtt_bins = log_bins(m_echoes.rtt(), distribution_bins);
  report.pacer_lateness = m_sender.pacer_lateness().summarize();
  // Hellos never proven count as rejected: a hello is not a subscriber.
  report.rejected = m_refused.rejected + m_members.unproven_hellos();
  report.foreign_run_messages = m_foreign.messages;
  report.measured_seconds = facts.measured_seconds;
  report.subscribers = std::move(facts.subscribers);
  return result;
}

} // namespace netprof
