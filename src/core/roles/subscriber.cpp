#include "core/roles/subscriber.hpp"

#include "core/measuring/drop_injection.hpp"
#include "core/measuring/interval_reporter.hpp"
#include "core/protocol/outgoing_message.hpp"
#include "core/roles/echo_responder.hpp"
#include "core/roles/final_exchange.hpp"
#include "core/roles/joining.hpp"
#include "core/roles/opening_sink.hpp"
#include "core/roles/progress_report.hpp"
#include "core/roles/role_settings.hpp"
#include "core/roles/subscriber_role_result.hpp"
#include "core/roles/subscriber_run.hpp"
#include "core/roles/verdict.hpp"
#include "core/scheduling/process_usage.hpp"
#include "core/scheduling/waiting.hpp"

#include <netprof/records.hpp>
#include <netprof/report.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace netprof {

namespace {

constexpr auto housekeeping_interval = std::chrono::milliseconds(10);
// How long an echo waits for room in a full back channel before it is given up (and counted):
// long enough for a publisher that was off its CPU a while, short enough that one that stopped
// reading does not stall this subscriber's receiving for long.
constexpr auto echo_room_limit = std::chrono::milliseconds(200);

// What the subscriber is doing, for the status line: above all, what it waits for.
LivePhase live_phase(const SubscriberRun& run) noexcept
{
  if (!run.acknowledged)
    return LivePhase::waiting_for_acknowledgement;
  if (!run.data_started)
    return LivePhase::waiting_for_data;
  if (run.end_received)
    return LivePhase::ending;
  return run.sequences.received() > 0 ? LivePhase::measuring : LivePhase::warming_up;
}

// The subscriber's whole test, in phases as the publisher's: join a publisher's run (Joining),
// count what arrives on its own clock (SubscriberRun) and echo probes (EchoResponder), answer
// END with its counters (FinalExchange), then hand the facts to the verdict. This class routes
// each message to those pieces and carries out their decisions on the endpoint; when to give
// up is SubscriberDeadlines'.
class Subscriber final : public OpeningSink<Subscriber> {
public:
  Subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live,
             Clock::time_point started)
      : OpeningSink(config.shared_secret, MessageOpener::Reader::subscriber),
        m_report_config(config), m_settings(subscriber_settings(config)), m_started(started),
        m_endpoint(endpoint), m_stop(stop), m_live(live),
        m_waiter(endpoint, *this, m_settings.wait_strategy, stop, &m_latest_arrival),
        m_echoes(m_settings.payload_size, endpoint.facts().max_message_size),
        m_hello(m_authentication.tag_room()), m_final(m_authentication),
        m_progress(m_authentication), m_joining(m_settings.id),
        m_deadlines(m_settings, Clock::now()),
        m_drops(m_settings.drop_percent, m_settings.drop_seed)
  {
    if (m_settings.interval)
      m_intervals = std::make_unique<IntervalMeter>(*m_settings.interval);
  }

  RoleResult run();
  void on_opened(const OpenedMessage& opened, const Delivery& delivery,
                 Clock::time_point arrived) noexcept;
  // Data is counted (and probes echoed) where it arrives; only the rest needs the run loop
  // before its next housekeeping (MessageSink::wants_control).
  bool wants_control() noexcept override { return std::exchange(m_control_wanted, false); }

private:
  bool take_run(const wire::Header& header, std::span<const std::byte> payload) noexcept;
  void start_run(const wire::Header& header, std::span<const std::byte> payload) noexcept;
  void on_challenge(const wire::Header& header, PeerHandle sender) noexcept;
  // False when the echo never went out: the transport failed, or its back channel stayed
  // full past echo_room_limit.
  bool echo(const wire::Header& probe, Clock::time_point arrived) noexcept;
  void on_run_message(const wire::Header& header, const Delivery& delivery,
                      Clock::time_point now) noexcept;
  void on_data(const wire::Header& header, const Delivery& delivery,
               Clock::time_point now) noexcept;
  void on_end(const wire::Header& header, Clock::time_point now) noexcept;
  // `adopting`: made our publisher first (an invitation's sender), then sent it as to any peer.
  void send_hello(std::optional<PeerHandle> adopting = std::nullopt) noexcept;
  void send_final_counters(std::uint16_t flags = 0) noexcept;
  void send_progress(Clock::time_point now) noexcept;
  IntervalTotals interval_totals() const noexcept;
  void close_interval_if_due(Clock::time_point now) noexcept;
  SubscriberResult figures(std::optional<std::uint64_t> sent) const;
  SubscriberFacts facts(std::optional<RunEnding> ending) const;
  RoleResult make_result(std::optional<RunEnding> ending);

  // Only for the report, which shows the settings (as the publisher described the run).
  const RunConfig& m_report_config;
  const SubscriberSettings m_settings;
  const Clock::time_point m_started; // the join time counts from here
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  Waiter m_waiter;
  EchoResponder m_echoes;
  OutgoingMessage m_hello;
  FinalExchange m_final;
  ProgressReport m_progress;
  Joining m_joining;

  std::unique_ptr<SubscriberRun> m_run = std::make_unique<SubscriberRun>();
  std::vector<AbandonedRun> m_abandoned;
  SubscriberDeadlines m_deadlines;
  DropInjection m_drops;
  std::unique_ptr<IntervalMeter> m_intervals; // --interval
  std::vector<IntervalFigures> m_interval_figures;
  bool m_control_wanted = true; // since wants_control() last asked: a message other than data
};

} // namespace

void Subscriber::on_opened(const OpenedMessage& opened, const Delivery& delivery,
                           Clock::time_point arrived) noexcept
{
  const wire::Header& header = opened.header;
  m_control_wanted = m_control_wanted || header.kind != wire::MessageKind::data;
  if (header.kind == wire::MessageKind::challenge) {
    on_challenge(header, delivery.sender);
    return;
  }
  if (header.run_id != m_run->run_id && !take_run(header, opened.payload())) {
    // Another run's message (a second run on this medium, or a replay) is counted, never
    // judged. While seeking, a restarted publisher's run is the one we are looking for.
    if (!m_joining.seeking() && of_another_run(header, m_run->run_id))
      m_foreign.count(header, header.kind == wire::MessageKind::data);
    ++m_refused.rejected;
    return;
  }
  if (header.kind == wire::MessageKind::data && m_drops.drops(header.sequence)) {
    if ((header.flags & wire::flags::warmup) == 0)
      ++m_run->injected_drops;
    return; // --drop-rate: as if it never came
  }
  // A probe is echoed before anything else: the round trip should hold as little of the
  // subscriber's own work as possible (what it holds, t3 - t2, is taken out of the offset).
  if (header.kind == wire::MessageKind::data && (header.flags & wire::flags::probe) != 0 &&
      !echo(header, arrived) && (header.flags & wire::flags::warmup) == 0)
    ++m_run->echoes_unsent;
  // Every figure of this message dates from its arrival, the echo's send not included.
  m_deadlines.heard_publisher(arrived);
  on_run_message(header, delivery, arrived);
}

void Subscriber::on_run_message(const wire::Header& header, const Delivery& delivery,
                                Clock::time_point now) noexcept
{
  switch (header.kind) {
  case wire::MessageKind::hello_ack:
    if (m_joining.addressed_to_us(header, *m_run)) {
      if (!m_run->acknowledged)
        m_run->joined_after = now - m_started;
      m_run->acknowledged = true;
    }
    break;
  case wire::MessageKind::data:
    on_data(header, delivery, now);
    break;
  case wire::MessageKind::end:
    on_end(header, now);
    break;
  case wire::MessageKind::final_ack:
    if (m_final.on_final_ack(header, *m_run, m_joining) == FinalAckTaking::refused)
      ++m_refused.rejected;
    break;
  default:
    ++m_refused.rejected;
  }
}

bool Subscriber::take_run(const wire::Header& header, std::span<const std::byte> payload) noexcept
{
  switch (m_joining.take_run(header, *m_run)) {
  case RunTaking::refused:
    return false;
  case RunTaking::first:
    start_run(header, payload);
    return true;
  case RunTaking::other_publisher:
    ++m_foreign.other_publishers; // it tells of a second run on the medium
    return false;
  case RunTaking::restarted_publisher:
    break;
  }
  // The old run is kept, partial, for the report, unless nothing of it ever arrived (a stale
  // acknowledgement). A control event, not the per-message path: these allocations are
  // allowed here.
  try {
    if (m_run->data_started)
      m_abandoned.push_back({m_run->run_id, figures(std::nullopt)});
    m_run = std::make_unique<SubscriberRun>();
  } catch (...) {
    return false;
  }
  m_joining.set_seeking(false);
  start_run(header, payload);
  return true;
}

// The run's probes may be larger than this process's own -s: the full echo's buffer is made
// as large as the run's payload here, at a control event, so the echo never allocates.
void Subscriber::start_run(const wire::Header& header, std::span<const std::byte> payload) noexcept
{
  m_run->start(header, payload);
  m_progress.start_run(*m_run);
  if (m_run->described)
    m_echoes.make_room_for(m_run->description.payload_size);
}

bool Subscriber::echo(const wire::Header& probe, Clock::time_point arrived) noexcept
{
  const auto answer = [&] {
    return m_endpoint.send(m_echoes.answer(probe, m_joining.id(), m_joining.instance(), arrived));
  };
  SendOutcome outcome = answer();
  if (outcome.result == SendResult::back_pressured) {
    // Held as a blocking program's send() would hold it, never dropped at the first try: a
    // publisher briefly off its CPU fills a shallow back channel (a POSIX queue of 10). Each
    // try is stamped anew, so the wait counts in the round trip but not as our own time.
    const auto give_up = Clock::now() + echo_room_limit;
    while (outcome.result == SendResult::back_pressured && !m_stop.requested() &&
           Clock::now() < give_up && m_waiter.wait_for_room_without_receiving())
      outcome = answer();
  }
  m_endpoint.flush();
  return outcome.result == SendResult::sent;
}

void Subscriber::on_challenge(const wire::Header& header, PeerHandle sender) noexcept
{
  const ChallengeAnswer answer = m_joining.on_challenge(header, *m_run);
  if (answer.other_publisher)
    ++m_foreign.other_publishers;
  if (answer.hello)
    send_hello(answer.adopt_sender ? std::optional(sender) : std::nullopt);
}

void Subscriber::on_data(const wire::Header& header, const Delivery& delivery,
                         Clock::time_point now) noexcept
{
  const DataCounted counted = m_run->count_data(header, delivery, now);
  m_refused.rejected += counted.refused;
  if (!counted.measured)
    return;
  LiveCounters::bump(m_live.received);
  if (m_progress.due(*m_run, now))
    send_progress(now);
  if (m_intervals) {
    if (counted.first_measured && !m_intervals->started())
      m_intervals->start(now); // a subscriber's intervals begin at its first measured message
    m_intervals->record_latency(counted.one_way);
    close_interval_if_due(now);
  }
}

void Subscriber::on_end(const wire::Header& header, Clock::time_point now) noexcept
{
  switch (m_final.on_end(header, *m_run, now)) {
  case EndTaking::refused:
    ++m_refused.rejected;
    return;
  case EndTaking::restored:
    --m_refused.rejected; // the END data followed was real after all (reordered), not forged
    break;
  case EndTaking::taken:
    break;
  }
  if (!m_run->final_acknowledged)
    send_final_counters();
}

IntervalTotals Subscriber::interval_totals() const noexcept
{
  IntervalTotals totals;
  totals.messages = m_run->sequences.received();
  totals.payload_bytes = m_run->tally.payload_bytes;
  totals.missing = m_run->missing();
  return totals;
}

void Subscriber::close_interval_if_due(Clock::time_point now) noexcept
{
  if (m_intervals->due(now))
    m_intervals->close(now, interval_totals());
}

SubscriberResult Subscriber::figures(std::optional<std::uint64_t> sent) const
{
  return m_run->figures(m_settings.id, m_refused.rejected, sent);
}

void Subscriber::send_hello(std::optional<PeerHandle> adopting) noexcept
{
  const std::span<const std::byte> hello =
      m_authentication.seal(m_hello, m_joining.hello(Clock::now()));
  if (adopting)
    m_joining.publisher_adopted(m_endpoint.reply(*adopting, hello, PeerFate::adopt).adopted);
  else
    m_endpoint.send(hello);
  m_endpoint.flush();
}

void Subscriber::send_progress(Clock::time_point now) noexcept
{
  m_endpoint.send(m_progress.message(*m_run, m_joining, now));
  m_endpoint.flush();
}

void Subscriber::send_final_counters(std::uint16_t flags) noexcept
{
  m_endpoint.send(m_final.counters(*m_run, m_joining, m_refused.rejected,
                                   measure_process_usage(m_settings.pair_layout), flags,
                                   Clock::now()));
  m_endpoint.flush();
}

RoleResult run_subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                          LiveCounters& live, Clock::time_point started)
{
  return Subscriber(config, endpoint, stop, live, started).run();
}

RoleResult Subscriber::run()
{
  std::optional<IntervalReporter> reporter;
  if (m_intervals)
    reporter.emplace(*m_intervals, Role::subscriber, m_settings.interval_lines);
  std::optional<RunEnding> ending;
  while (!ending && !m_stop.requested()) {
    const auto now = Clock::now();
    if (m_intervals && !m_run->end_received)
      close_interval_if_due(now); // intervals close in a silence too, until the END
    m_joining.set_seeking(m_deadlines.seeking(*m_run, now));
    if (m_joining.hello_due(*m_run, now))
      send_hello();
    if (m_progress.due(*m_run, now))
      send_progress(now); // again, in case the last was lost
    m_live.enter(live_phase(*m_run));
    ending = m_deadlines.ending(*m_run, now);
    if (ending)
      break;
    // Deadlines and hellos need a look only every few milliseconds, and may be a slice late
    // (--interval boundaries may not); in between the waiter receives at full speed.
    if (!m_waiter.wait_until(
            now + housekeeping_interval, [&] { return m_run->final_acknowledged; },
            m_intervals ? Waiter::Deadline::exact : Waiter::Deadline::soft))
      ending = RunEnding::transport_failed;
  }
  if (m_stop.requested() && m_deadlines.heard_publisher() && !m_run->end_received) {
    // Leaving mid-test: tell the publisher, so its report says so instead of guessing. Sent a
    // few times without waiting for an acknowledgement; it may be lost like any datagram.
    for (int i = 0; i < 3; ++i)
      send_final_counters(wire::flags::departing);
  }
  if (reporter) {
    // The last interval ends with the last measured message, as the run's own span does.
    m_intervals->finish(std::max(m_run->last_measured, m_run->first_measured), interval_totals());
    m_interval_figures = reporter->stop();
  }
  return make_result(ending);
}

SubscriberFacts Subscriber::facts(std::optional<RunEnding> ending) const
{
  const SubscriberRun& run = *m_run;
  SubscriberFacts facts;
  static_cast<RunProgress&>(facts) = run;
  facts.interrupted = m_stop.requested();
  facts.ended_by = ending.value_or(facts.interrupted ? RunEnding::interrupted : RunEnding::end);
  facts.id_clash = m_joining.id_clash();
  facts.unauthenticated = m_refused.unauthenticated;
  facts.foreign = m_foreign;
  facts.self = figures(run.end_received ? std::optional(run.publisher_sent) : std::nullopt);
  facts.abandoned_runs = m_abandoned;
  return facts;
}

RoleResult Subscriber::make_result(std::optional<RunEnding> ending)
{
  return subscriber_role_result(facts(ending), *m_run, m_report_config, m_refused.rejected,
                                std::move(m_interval_figures));
}

} // namespace netprof
