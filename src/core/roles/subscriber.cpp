#include "core/roles/subscriber.hpp"

#include "core/measuring/drop_injection.hpp"
#include "core/measuring/interval_reporter.hpp"
#include "core/protocol/control_authentication.hpp"
#include "core/protocol/outgoing_message.hpp"
#include "core/protocol/run_description.hpp"
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
#include <new>
#include <optional>
#include <random>
#include <vector>

namespace netprof {

namespace {

constexpr auto hello_interval = std::chrono::milliseconds(100);
constexpr auto housekeeping_interval = std::chrono::milliseconds(10);

// Picked once per process, outside any measured loop (random_device may open a file).
std::uint32_t random_instance_tag()
{
  std::random_device device;
  std::uint32_t tag = 0;
  while (tag == 0) // 0 means "no tag"
    tag = device() ^ static_cast<std::uint32_t>(Clock::now().time_since_epoch().count());
  return tag;
}

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

// The subscriber's whole test: say hello until a publisher takes it into its run, count what
// arrives on its own clock, echo probes, answer END with its counters, then hand the facts to
// the verdict. Its run's figures live in SubscriberRun; when to give up, in SubscriberDeadlines.
class Subscriber final : public MessageSink {
public:
  Subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live)
      : m_config(config), m_endpoint(endpoint), m_stop(stop), m_live(live),
        m_authentication(config.shared_secret),
        m_waiter(endpoint, *this, config.wait_strategy, stop), m_echo(wire::echo_stamps_size),
        m_full_echo(wire::full_echo_payload_size(config.payload_size)),
        m_largest_message(endpoint.facts().max_message_size), m_hello(m_authentication.tag_room()),
        m_control(wire::final_counters_with_addendum_size + m_authentication.tag_room()),
        m_instance(random_instance_tag()), m_deadlines(config, Clock::now()),
        m_drops(config.drop_percent, config.drop_seed)
  {
    if (config.interval_seconds)
      m_intervals = std::make_unique<IntervalMeter>(from_seconds(*config.interval_seconds));
  }

  RoleResult run();
  void on_message(const Delivery& delivery) noexcept override;

private:
  bool take_run(const wire::Header& header, std::span<const std::byte> payload) noexcept;
  void make_room_for_full_echoes() noexcept;
  void on_challenge(const wire::Header& header, PeerHandle sender) noexcept;
  bool addressed_to_us(const wire::Header& header) noexcept;
  void on_data(const wire::Header& header, const Delivery& delivery,
               Clock::time_point now) noexcept;
  void on_end(const wire::Header& header, Clock::time_point now) noexcept;
  void echo(const wire::Header& probe, Clock::time_point arrived) noexcept;
  // `adopting`: made our publisher first (an invitation's sender), then sent it as to any peer.
  void send_hello(std::optional<PeerHandle> adopting = std::nullopt) noexcept;
  void send_final_counters(std::uint16_t flags = 0) noexcept;
  IntervalTotals interval_totals() const noexcept;
  void close_interval_if_due(Clock::time_point now) noexcept;
  SubscriberResult figures(std::optional<std::uint64_t> sent) const;
  RoleResult make_result(std::optional<RunEnding> ending) const;

  const RunConfig& m_config;
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  const ControlAuthentication m_authentication;
  Waiter m_waiter;
  OutgoingMessage m_echo;
  // --echo full: as large as the probes; grown to the run's -s when a publisher takes us in.
  OutgoingMessage m_full_echo;
  const std::size_t m_largest_message; // that the endpoint takes in (EndpointFacts)
  OutgoingMessage m_hello;
  OutgoingMessage m_control;
  const std::uint32_t m_instance; // this process's instance tag (wire.hpp)

  std::unique_ptr<SubscriberRun> m_run = std::make_unique<SubscriberRun>();
  std::vector<AbandonedRun> m_abandoned;
  SubscriberDeadlines m_deadlines;
  DropInjection m_drops;
  std::unique_ptr<IntervalMeter> m_intervals; // --interval
  std::vector<IntervalFigures> m_interval_figures;
  bool m_seeking = false;           // our publisher is silent: hellos ask any publisher to take us
  bool m_publisher_adopted = false; // an invitation's sender was taken as our publisher
  std::uint64_t m_cookie = 0;       // the last challenge's, echoed in every hello (wire.hpp)
  std::uint32_t m_other_instance = 0;  // another live process answering to our id, once seen
  std::uint64_t m_rejected = 0;        // over the whole process
  ForeignRuns m_foreign;               // messages of another run, among the rejected
  std::uint64_t m_unauthenticated = 0; // control messages without a valid MAC (--key-file)
};

} // namespace

RoleResult run_subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                          LiveCounters& live)
{
  return Subscriber(config, endpoint, stop, live).run();
}

void Subscriber::on_message(const Delivery& delivery) noexcept
{
  // A probe's arrival (NTP's t2) is stamped before anything else, like the publisher's t4.
  const auto arrived = Clock::now();
  wire::Header header;
  std::span<const std::byte> message = delivery.bytes;
  if (wire::decode_header(message, header) != wire::DecodeError::none) {
    ++m_rejected;
    return;
  }
  if (header.sender_id != 0) {
    // Back-channel traffic on a shared medium: other subscribers', or our own looped back.
    return;
  }
  if (!m_authentication.open(header, message)) {
    ++m_rejected;
    ++m_unauthenticated;
    return;
  }
  if (header.kind == wire::MessageKind::challenge) {
    on_challenge(header, delivery.sender);
    return;
  }
  if (header.run_id != m_run->run_id && !take_run(header, message.subspan(wire::header_size))) {
    // Another run's message (a second run on this medium, or a replay) is counted, never
    // judged. While seeking, a restarted publisher's run is the one we are looking for.
    if (!m_seeking && of_another_run(header, m_run->run_id))
      m_foreign.count(header, header.kind == wire::MessageKind::data);
    ++m_rejected;
    return;
  }
  SubscriberRun& run = *m_run;
  if (header.kind == wire::MessageKind::data && m_drops.drops(header.sequence)) {
    if ((header.flags & wire::flags::warmup) == 0)
      ++run.injected_drops;
    return; // --drop-rate: as if it never came
  }
  // A probe is echoed before anything else: the round trip should hold as little of the
  // subscriber's own work as possible (what it holds, t3 - t2, is taken out of the offset).
  if (header.kind == wire::MessageKind::data && (header.flags & wire::flags::probe) != 0)
    echo(header, arrived);
  // Every figure of this message dates from its arrival, the echo's send not included.
  const auto now = arrived;
  m_deadlines.heard_publisher(now);
  switch (header.kind) {
  case wire::MessageKind::hello_ack:
    if (addressed_to_us(header))
      run.acknowledged = true;
    break;
  case wire::MessageKind::data:
    on_data(header, delivery, now);
    break;
  case wire::MessageKind::end:
    if (wire::carried_secret(header) == run.end_token)
      on_end(header, now);
    else
      ++m_rejected; // from someone who saw our echoes, not our publisher's acknowledgement
    break;
  case wire::MessageKind::final_ack:
    // Only the answer to our final counters, which we send only on an END: one without an END
    // standing (forged, or of an END that data then proved premature) ends nothing.
    if (header.sequence != m_config.id)
      break; // another subscriber's, on a shared medium
    if (addressed_to_us(header) && run.end_received &&
        wire::carried_secret(header) == run.end_token)
      run.final_acknowledged = true;
    else
      ++m_rejected;
    break;
  default:
    ++m_rejected;
  }
}

bool Subscriber::take_run(const wire::Header& header, std::span<const std::byte> payload) noexcept
{
  // Only a hello_ack addressed to us starts a run: it proves a publisher took this process as
  // its subscriber. A stray or stale datagram of some other run, or another subscriber's
  // acknowledgement on a shared medium, proves nothing and is rejected.
  if (header.kind != wire::MessageKind::hello_ack || header.run_id == 0 || !addressed_to_us(header))
    return false;
  if (m_run->run_id == 0) {
    m_run->run_id = header.run_id;
    m_run->end_token = wire::carried_secret(header);
    m_run->described = wire::decode_run_description(payload, m_run->description);
    make_room_for_full_echoes();
    return true;
  }
  // While our publisher talks, an acknowledgement from another one (two publishers on one
  // medium both answering our first hello) does not take us away from it: it tells of a
  // second run on the medium.
  if (!m_seeking) {
    ++m_foreign.other_publishers;
    return false;
  }
  // Our publisher went silent and a new one answered: it was restarted. The old run is kept,
  // partial, for the report, unless nothing of it ever arrived (a stale acknowledgement).
  // A control event, not the per-message path: these allocations are allowed here.
  try {
    if (m_run->data_started)
      m_abandoned.push_back({m_run->run_id, figures(std::nullopt)});
    m_run = std::make_unique<SubscriberRun>();
  } catch (...) {
    return false;
  }
  m_run->run_id = header.run_id;
  m_run->end_token = wire::carried_secret(header);
  m_run->described = wire::decode_run_description(payload, m_run->description);
  m_seeking = false;
  make_room_for_full_echoes();
  return true;
}

// The run's probes may be larger than this process's own -s: the full echo's buffer is made
// as large as the run's payload here, at a control event, so the echo never allocates.
void Subscriber::make_room_for_full_echoes() noexcept
{
  if (!m_run->described || m_run->description.payload_size > m_largest_message)
    return; // a probe larger than the buffer gets the record echo (see echo())
  try {
    m_full_echo.reserve_payload(
        wire::full_echo_payload_size(static_cast<std::size_t>(m_run->description.payload_size)));
  } catch (const std::bad_alloc&) {
    // Without the room, probes get the record echo, and the report's bytes per echo says so.
  }
}

// A publisher's acknowledgement names the process it answers by its instance tag: one naming
// our id with another tag, once we were acknowledged ourselves, answers another live process
// that uses our id (a predecessor's stray answers end when it dies, before we are taken in).
bool Subscriber::addressed_to_us(const wire::Header& header) noexcept
{
  if (header.sequence != m_config.id)
    return false;
  const std::uint32_t instance = wire::instance_tag(header);
  if (instance == m_instance)
    return true;
  // Only an acknowledgement of our own run tells of a clash: one of another run (replayed, or
  // from a second run on this medium) is foreign, whatever its MAC.
  if (instance != 0 && m_run->acknowledged && header.run_id == m_run->run_id &&
      m_other_instance == 0)
    m_other_instance = instance;
  return false;
}

void Subscriber::on_challenge(const wire::Header& header, PeerHandle sender) noexcept
{
  // Challenges go to one address, or on a shared medium to everyone: another subscriber's is
  // no concern of ours.
  const bool ours = header.sequence == m_config.id && wire::instance_tag(header) == m_instance;
  if (m_run->acknowledged && !m_seeking) {
    // Our publisher has taken us in. It gives us one cookie, the one we echoed last: another
    // one for us is another publisher's, answering a hello it heard on the same medium.
    if (ours && wire::carried_secret(header) != m_cookie)
      ++m_foreign.other_publishers;
    return;
  }
  if (header.sequence == 0) {
    // An invitation (wire.hpp): our publisher, when we were given only our own address. The
    // first to call is taken; a transport that already sends to it, or to everyone, ignores
    // this.
    send_hello(m_publisher_adopted ? std::nullopt : std::optional(sender));
    return;
  }
  if (!ours)
    return;
  m_cookie = wire::carried_secret(header);
  send_hello(); // at once: the handshake costs one round trip more, not a hello interval
}

void Subscriber::on_data(const wire::Header& header, const Delivery& delivery,
                         Clock::time_point now) noexcept
{
  SubscriberRun& run = *m_run;
  run.data_started = true;
  if (run.end_received && !run.final_acknowledged) {
    // The publisher sends nothing after its END, so an END that data follows was not its last
    // word: forged, or (rarely, on a network that reorders) overtaken by data sent before it.
    // It stops counting as the end; a copy of it arriving again restores it (on_end).
    run.end_received = false;
    run.withdrawn_end = run.publisher_sent;
    run.publisher_sent = 0;
    ++m_rejected;
  }
  if ((header.flags & wire::flags::warmup) != 0) {
    ++run.tally.warmup_received; // its probes were echoed too, to warm the echo path
    return;
  }
  if ((header.flags & wire::flags::probe) != 0)
    ++run.tally.probes_echoed;
  if (run.sequences.received() == 0) {
    if (m_intervals && !m_intervals->started())
      m_intervals->start(now); // a subscriber's intervals begin at its first measured message
    run.first_measured = now;
    run.first_sequence = header.sequence;
    run.highest_sequence = header.sequence;
  }
  run.highest_sequence = std::max(run.highest_sequence, header.sequence);
  run.last_measured = now;
  const std::int64_t one_way = run.record_one_way(header.sent_ns, now);
  run.sequences.observe(header.sequence);
  LiveCounters::bump(m_live.received);
  run.tally.datagrams += delivery.datagrams;
  run.tally.payload_bytes += header.payload_length;
  run.tally.wire_bytes += delivery.wire_bytes;
  if (m_intervals) {
    m_intervals->record_latency(one_way);
    close_interval_if_due(now);
  }

  if (header.record_count > 0) {
    if (!run.records) {
      // A payload too small for that many records cannot be ours: building a reader for a
      // forged count of millions would cost seconds and hundreds of MB in the receive path.
      if (RecordLayout::minimum_payload_size(header.record_count) > header.payload_length) {
        ++m_rejected;
        return;
      }
      // Built once per run, at the first message that carries records; never again per message.
      try {
        run.records = std::make_unique<RecordReader>(header.record_count);
      } catch (...) {
        ++m_rejected;
        return;
      }
    }
    const std::int64_t found =
        run.records->read(delivery.bytes.subspan(wire::header_size), header.record_count);
    if (found < 0)
      ++m_rejected;
    else
      run.tally.records_decoded += static_cast<std::uint64_t>(found);
  }
}

void Subscriber::echo(const wire::Header& probe, Clock::time_point arrived) noexcept
{
  wire::Header header = probe;
  header.kind = wire::MessageKind::echo;
  header.sender_id = m_config.id;
  header.record_count = m_instance;
  // --echo full: as many bytes back as came (filler after the stamps, written once, so nothing
  // is copied per probe); a probe larger than the buffer gets the record (make_room_...).
  const std::size_t full_size = wire::full_echo_payload_size(probe.payload_length);
  const bool full =
      (probe.flags & wire::flags::full_echo) != 0 && full_size <= m_full_echo.payload_capacity();
  OutgoingMessage& out = full ? m_full_echo : m_echo;
  const std::span<std::byte> message =
      full ? out.with_header(header, full_size) : out.with_header(header);
  // t3 last, as close to the send as the encoding allows.
  wire::encode_echo_stamps({to_wire_ns(arrived), to_wire_ns(Clock::now())}, out.payload());
  m_endpoint.send(message);
  m_endpoint.flush();
}

void Subscriber::on_end(const wire::Header& header, Clock::time_point now) noexcept
{
  SubscriberRun& run = *m_run;
  const std::uint64_t count = header.sequence;
  // Measured messages are numbered from 0 and END follows the last: an END counting no more
  // than the highest number already received is impossible.
  if (run.sequences.received() > 0 && count <= run.highest_sequence) {
    ++m_rejected;
    return;
  }
  if (run.end_received && count != run.publisher_sent) {
    // Two ENDs with no data between them disagree: one is forged, and nothing here tells
    // which. The first stands; the verdict says so unless the publisher accepts our counters
    // (it takes only those carrying its own count back).
    ++m_rejected;
    ++run.conflicting_ends;
    run.conflicting_count = count;
    return;
  }
  if (!run.end_received && run.withdrawn_end == count) {
    --m_rejected; // the END data followed was real after all (reordered), not a forgery
    run.withdrawn_end.reset();
  }
  run.end_received = true;
  run.publisher_sent = count;
  run.last_end = now;
  if (!run.final_acknowledged)
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
  return m_run->figures(m_config.id, m_rejected, sent);
}

void Subscriber::send_hello(std::optional<PeerHandle> adopting) noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::hello;
  header.sender_id = m_config.id;
  // Run id 0: "take me into your run". A hello is only sent without a run, or to find a
  // publisher when ours fell silent; a live publisher of our run acknowledges either way.
  header.run_id = 0;
  header.record_count = m_instance;
  wire::carry_secret(header, m_cookie);
  header.sent_ns = to_wire_ns(Clock::now());
  const std::span<const std::byte> hello = m_authentication.seal(m_hello, header);
  if (adopting)
    m_publisher_adopted = m_endpoint.reply(*adopting, hello, PeerFate::adopt).adopted;
  else
    m_endpoint.send(hello);
  m_endpoint.flush();
}

void Subscriber::send_final_counters(std::uint16_t flags) noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::final_counters;
  header.flags = flags;
  header.sender_id = m_config.id;
  header.run_id = m_run->run_id;
  header.sequence = m_run->publisher_sent;
  header.record_count = m_instance;
  const std::int64_t now_ns = to_wire_ns(Clock::now());
  header.intended_ns = now_ns;
  header.sent_ns = now_ns;
  wire::encode_counters(m_run->counters(m_rejected), m_control.payload());
  wire::encode_final_addendum({measure_process_usage(m_config.pair_layout), m_run->injected_drops},
                              m_control.payload().subspan(wire::final_counters_size));
  m_endpoint.send(m_authentication.seal(m_control, header));
  m_endpoint.flush();
}

RoleResult Subscriber::run()
{
  std::optional<IntervalReporter> reporter;
  if (m_intervals)
    reporter.emplace(*m_intervals, Role::subscriber,
                     m_config.quiet ? nullptr : (json_on_stdout(m_config) ? stderr : stdout));
  auto next_hello = Clock::now();
  std::optional<RunEnding> ending;
  while (!ending && !m_stop.requested()) {
    const auto now = Clock::now();
    if (m_intervals && !m_run->end_received)
      close_interval_if_due(now); // intervals close in a silence too, until the END
    m_seeking = m_deadlines.seeking(*m_run, now);
    if ((!m_run->acknowledged || m_seeking) && now >= next_hello) {
      send_hello();
      next_hello = now + hello_interval;
    }
    m_live.enter(live_phase(*m_run));
    ending = m_deadlines.ending(*m_run, now);
    if (ending)
      break;
    // Deadlines and hellos need a look only every few milliseconds; in between the waiter
    // receives at full speed.
    if (!m_waiter.wait_until(now + housekeeping_interval,
                             [&] { return m_run->final_acknowledged; }))
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

RoleResult Subscriber::make_result(std::optional<RunEnding> ending) const
{
  const SubscriberRun& run = *m_run;
  SubscriberFacts facts;
  facts.interrupted = m_stop.requested();
  facts.ended_by = ending.value_or(facts.interrupted ? RunEnding::interrupted : RunEnding::end);
  facts.data_started = run.data_started;
  facts.end_received = run.end_received;
  facts.end_confirmed = run.final_acknowledged;
  facts.publisher_sent = run.publisher_sent;
  facts.first_sequence = run.first_sequence;
  facts.conflicting_ends = run.conflicting_ends;
  facts.conflicting_count = run.conflicting_count;
  facts.run_id = run.run_id;
  facts.id_clash = m_other_instance != 0;
  facts.unauthenticated = m_unauthenticated;
  facts.foreign = m_foreign;
  facts.self = figures(run.end_received ? std::optional(run.publisher_sent) : std::nullopt);
  facts.abandoned_runs = m_abandoned;

  RoleResult result;
  std::vector<std::string> disagreements;
  const RunConfig shown =
      run.described ? as_described(m_config, run.description, disagreements) : m_config;
  if (run.described)
    facts.pacing = RunPacing{shown.send_hz, shown.mode};
  Verdict verdict = subscriber_verdict(facts, m_config);
  verdict.warnings.insert(verdict.warnings.end(), disagreements.begin(), disagreements.end());
  apply_verdict(std::move(verdict), result);
  RunReport& report = result.report;
  report.config = shown;
  report.run_id = run.run_id;
  report.end_received = run.end_received;
  report.ended_by = facts.ended_by;
  report.rejected = m_rejected;
  report.foreign_run_messages = m_foreign.messages;
  report.self = facts.self;
  report.intervals = m_interval_figures;
  report.abandoned_runs = std::move(facts.abandoned_runs);
  return result;
}

} // namespace netprof
