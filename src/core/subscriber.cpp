#include "subscriber.hpp"

#include "outgoing_message.hpp"
#include "waiting.hpp"

#include <netprof/records.hpp>
#include <netprof/report.hpp>
#include <netprof/sequence_tracker.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace netprof {

namespace {

constexpr auto hello_interval = std::chrono::milliseconds(100);
constexpr auto housekeeping_interval = std::chrono::milliseconds(10);
// After END, the publisher stops repeating it once it has our counters; this much quiet
// means it has them (or has given up), so the subscriber may leave.
constexpr auto quiet_after_end = std::chrono::seconds(1);
// A publisher silent this long (or a quarter of the silence allowed, if that is shorter) may
// have been restarted: the subscriber says hello again with run id 0, so a new publisher can
// take it into its run. A live publisher of our run just acknowledges again.
constexpr auto seek_after = std::chrono::milliseconds(500);

// Picked once per process, outside any measured loop (random_device may open a file).
std::uint32_t random_instance_tag()
{
  std::random_device device;
  std::uint32_t tag = 0;
  while (tag == 0) // 0 means "no tag"
    tag = device() ^ static_cast<std::uint32_t>(Clock::now().time_since_epoch().count());
  return tag;
}

class Subscriber final : public MessageSink {
public:
  Subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live)
      : m_config(config), m_endpoint(endpoint), m_stop(stop), m_live(live),
        m_waiter(endpoint, *this, config.wait_strategy, stop), m_echo(0),
        m_control(wire::final_counters_size), m_instance(random_instance_tag())
  {
  }

  RoleResult run();
  void on_message(const Delivery& delivery) noexcept override;

private:
  enum class Outcome { running, finished, no_publisher, publisher_silent, transport_failed };

  // Everything that belongs to one run: reset when a restarted publisher takes us into a new one.
  struct RunState {
    std::uint64_t run_id = 0;
    bool acknowledged = false;
    bool data_started = false;
    bool end_received = false;
    bool final_acknowledged = false;
    std::uint64_t publisher_sent = 0; // the END's count, while end_received
    std::uint64_t first_sequence = 0; // of the first measured message received
    std::uint64_t highest_sequence = 0; // of the measured messages received
    // An END that data followed (see on_data): its count, in case a copy of it comes again.
    std::optional<std::uint64_t> withdrawn_end;
    // ENDs refused because another END's count already stood: one of them was forged.
    std::uint64_t conflicting_ends = 0;
    std::uint64_t conflicting_count = 0;
    Clock::time_point last_end{};
    Clock::time_point first_measured{};
    Clock::time_point last_measured{};
    SequenceTracker sequences;
    std::unique_ptr<RecordReader> records;
    std::uint64_t datagrams = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t wire_bytes = 0;
    std::uint64_t probes_echoed = 0;
    std::uint64_t warmup_received = 0;
    std::uint64_t records_decoded = 0;
  };

  bool take_run(const wire::Header& header) noexcept;
  void on_data(const wire::Header& header, const Delivery& delivery,
               Clock::time_point now) noexcept;
  void on_end(const wire::Header& header, Clock::time_point now) noexcept;
  void echo(const wire::Header& probe) noexcept;
  void send_hello() noexcept;
  void send_final_counters(std::uint16_t flags = 0) noexcept;
  wire::SubscriberCounters counters() const noexcept;
  SubscriberResult figures(std::optional<std::uint64_t> sent) const;
  Nanoseconds silence_allowed() const noexcept;
  Outcome check_deadlines(Clock::time_point start, Clock::time_point now) const noexcept;
  RoleResult make_result(Outcome outcome);

  const RunConfig& m_config;
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  Waiter m_waiter;
  OutgoingMessage m_echo;
  OutgoingMessage m_control;
  const std::uint32_t m_instance; // this process's instance tag (wire.hpp)

  std::unique_ptr<RunState> m_run = std::make_unique<RunState>();
  std::vector<AbandonedRun> m_abandoned;
  bool m_heard_publisher = false; // of the current run
  bool m_seeking = false;         // our publisher is silent: hellos ask any publisher to take us
  Clock::time_point m_last_heard{};
  std::uint64_t m_rejected = 0;   // over the whole process
};

void Subscriber::on_message(const Delivery& delivery) noexcept
{
  wire::Header header;
  if (wire::decode_header(delivery.bytes, header) != wire::DecodeError::none) {
    ++m_rejected;
    return;
  }
  if (header.sender_id != 0) {
    // Back-channel traffic on a shared medium: other subscribers', or our own looped back.
    return;
  }
  if (header.run_id != m_run->run_id && !take_run(header)) {
    ++m_rejected;
    return;
  }
  RunState& run = *m_run;
  // A probe is echoed before anything else, even reading the clock: the round trip should
  // hold as little of the subscriber's own work as possible.
  if (header.kind == wire::MessageKind::data && (header.flags & wire::flags::probe) != 0)
    echo(header);
  const auto now = Clock::now();
  m_heard_publisher = true;
  m_last_heard = now;
  switch (header.kind) {
  case wire::MessageKind::hello_ack:
    if (header.sequence == m_config.id)
      run.acknowledged = true;
    break;
  case wire::MessageKind::data:
    on_data(header, delivery, now);
    break;
  case wire::MessageKind::end:
    on_end(header, now);
    break;
  case wire::MessageKind::final_ack:
    // Only the answer to our final counters, which we send only on an END: one without an END
    // standing (forged, or of an END that data then proved premature) ends nothing.
    if (header.sequence != m_config.id)
      break;
    if (run.end_received)
      run.final_acknowledged = true;
    else
      ++m_rejected;
    break;
  default:
    ++m_rejected;
  }
}

bool Subscriber::take_run(const wire::Header& header) noexcept
{
  // Only a hello_ack addressed to us starts a run: it proves a publisher took this process as
  // its subscriber. A stray or stale datagram of some other run, or another subscriber's
  // acknowledgement on a shared medium, proves nothing and is rejected.
  if (header.kind != wire::MessageKind::hello_ack || header.sequence != m_config.id ||
      header.run_id == 0)
    return false;
  if (m_run->run_id == 0) {
    m_run->run_id = header.run_id;
    return true;
  }
  // While our publisher talks, an acknowledgement from another one (two publishers on one
  // medium both answering our first hello) does not take us away from it.
  if (!m_seeking)
    return false;
  // Our publisher went silent and a new one answered: it was restarted. The old run is kept,
  // partial, for the report, unless nothing of it ever arrived (a stale acknowledgement).
  // A control event, not the per-message path: these allocations are allowed here.
  try {
    if (m_run->data_started)
      m_abandoned.push_back({m_run->run_id, figures(std::nullopt)});
    m_run = std::make_unique<RunState>();
  } catch (...) {
    return false;
  }
  m_run->run_id = header.run_id;
  m_seeking = false;
  return true;
}

void Subscriber::on_data(const wire::Header& header, const Delivery& delivery,
                         Clock::time_point now) noexcept
{
  RunState& run = *m_run;
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
    ++run.warmup_received; // its probes were echoed too, to warm the echo path
    return;
  }
  if ((header.flags & wire::flags::probe) != 0)
    ++run.probes_echoed;
  if (run.sequences.received() == 0) {
    run.first_measured = now;
    run.first_sequence = header.sequence;
    run.highest_sequence = header.sequence;
  }
  run.highest_sequence = std::max(run.highest_sequence, header.sequence);
  run.last_measured = now;
  run.sequences.observe(header.sequence);
  LiveCounters::bump(m_live.received);
  run.datagrams += delivery.datagrams;
  run.payload_bytes += header.payload_length;
  run.wire_bytes += delivery.wire_bytes;

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
      run.records_decoded += static_cast<std::uint64_t>(found);
  }
}

void Subscriber::echo(const wire::Header& probe) noexcept
{
  wire::Header header = probe;
  header.kind = wire::MessageKind::echo;
  header.sender_id = m_config.id;
  header.record_count = m_instance;
  m_endpoint.send(m_echo.with_header(header));
  m_endpoint.flush();
}

void Subscriber::on_end(const wire::Header& header, Clock::time_point now) noexcept
{
  RunState& run = *m_run;
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

wire::SubscriberCounters Subscriber::counters() const noexcept
{
  const RunState& run = *m_run;
  wire::SubscriberCounters c;
  c.received = run.sequences.received();
  c.unique = run.sequences.unique();
  c.duplicates = run.sequences.duplicates();
  c.out_of_order = run.sequences.out_of_order();
  c.gaps = run.sequences.gaps();
  c.datagrams = run.datagrams;
  c.payload_bytes = run.payload_bytes;
  c.wire_bytes = run.wire_bytes;
  c.first_to_last_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<Nanoseconds>(run.last_measured - run.first_measured).count());
  c.probes_echoed = run.probes_echoed;
  c.rejected = m_rejected;
  c.warmup_received = run.warmup_received;
  c.records_decoded = run.records_decoded;
  return c;
}

SubscriberResult Subscriber::figures(std::optional<std::uint64_t> sent) const
{
  SubscriberResult self = subscriber_result(m_config.id, counters(), sent);
  self.probes_sent = m_run->probes_echoed;
  self.echoes = m_run->probes_echoed;
  // Its first measured message was not the publisher's first, and no warm-up came before it:
  // it joined after the measured phase began (or the first messages were lost).
  self.joined_late = m_run->sequences.received() > 0 && m_run->first_sequence > 0 &&
                     m_run->warmup_received == 0;
  return self;
}

void Subscriber::send_hello() noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::hello;
  header.sender_id = m_config.id;
  // Run id 0: "take me into your run". A hello is only sent without a run, or to find a
  // publisher when ours fell silent; a live publisher of our run acknowledges either way.
  header.run_id = 0;
  header.record_count = m_instance;
  const std::int64_t now_ns = to_wire_ns(Clock::now());
  header.intended_ns = now_ns;
  header.sent_ns = now_ns;
  m_endpoint.send(m_echo.with_header(header));
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
  wire::encode_counters(counters(), m_control.payload());
  m_endpoint.send(m_control.with_header(header));
  m_endpoint.flush();
}

Nanoseconds Subscriber::silence_allowed() const noexcept
{
  // Before data flows the publisher may still be waiting for other subscribers (up to its
  // own --wait); once data flows, silence means it is gone.
  return m_run->data_started && !m_run->end_received ? from_seconds(m_config.idle_timeout_seconds)
                                                     : from_seconds(m_config.wait_seconds);
}

Subscriber::Outcome Subscriber::check_deadlines(Clock::time_point start,
                                                Clock::time_point now) const noexcept
{
  const RunState& run = *m_run;
  if (run.final_acknowledged || (run.end_received && now - run.last_end >= quiet_after_end))
    return Outcome::finished;
  if (!m_heard_publisher)
    return now - start >= from_seconds(m_config.wait_seconds) ? Outcome::no_publisher
                                                               : Outcome::running;
  return now - m_last_heard >= silence_allowed() ? Outcome::publisher_silent : Outcome::running;
}

RoleResult Subscriber::run()
{
  const auto start = Clock::now();
  auto next_hello = start;
  Outcome outcome = Outcome::running;
  while (outcome == Outcome::running && !m_stop.requested()) {
    const auto now = Clock::now();
    m_seeking = m_heard_publisher && !m_run->end_received &&
                now - m_last_heard >= std::min<Nanoseconds>(seek_after, silence_allowed() / 4);
    if ((!m_run->acknowledged || m_seeking) && now >= next_hello) {
      send_hello();
      next_hello = now + hello_interval;
    }
    outcome = check_deadlines(start, now);
    if (outcome != Outcome::running)
      break;
    // Deadlines and hellos need a look only every few milliseconds; in between the waiter
    // receives at full speed.
    if (!m_waiter.wait_until(now + housekeeping_interval,
                             [&] { return m_run->final_acknowledged; }))
      outcome = Outcome::transport_failed;
  }
  if (m_stop.requested() && m_heard_publisher && !m_run->end_received) {
    // Leaving mid-test: tell the publisher, so its report says so instead of guessing. Sent a
    // few times without waiting for an acknowledgement; it may be lost like any datagram.
    for (int i = 0; i < 3; ++i)
      send_final_counters(wire::flags::departing);
  }
  return make_result(outcome);
}

RoleResult Subscriber::make_result(Outcome outcome)
{
  const RunState& run = *m_run;
  RoleResult result;
  RunReport& report = result.report;
  report.run_id = run.run_id;
  report.interrupted = m_stop.requested();
  report.end_received = run.end_received;
  report.rejected = m_rejected;
  const auto sent = run.end_received ? std::optional<std::uint64_t>(run.publisher_sent)
                                     : std::nullopt;
  const SubscriberResult self = figures(sent);
  report.self = self;
  report.abandoned_runs = m_abandoned;

  auto& problems = report.problems;
  auto& warnings = report.warnings;
  ExitStatus failure = ExitStatus::failed;
  switch (outcome) {
  case Outcome::no_publisher:
    report.ended_by = RunEnding::no_publisher;
    problems.push_back("no publisher was heard within --wait " +
                       format_number(m_config.wait_seconds) +
                       " s (is it running, and are the addresses right?)");
    failure = ExitStatus::runtime;
    break;
  case Outcome::publisher_silent:
    report.ended_by = RunEnding::publisher_silent;
    problems.push_back(
        run.data_started
            ? "the publisher went silent before the end of the test (killed?): nothing for "
              "--idle-timeout " + format_number(m_config.idle_timeout_seconds) +
                  " s, so these figures are partial"
            : "the publisher acknowledged us but never started sending");
    break;
  case Outcome::transport_failed:
    report.ended_by = RunEnding::transport_failed;
    problems.push_back("the transport failed while receiving");
    failure = ExitStatus::runtime;
    break;
  case Outcome::running:
    report.ended_by = report.interrupted ? RunEnding::interrupted : RunEnding::end;
    break;
  case Outcome::finished:
    report.ended_by = RunEnding::end;
    break;
  }
  if (!report.interrupted && outcome != Outcome::no_publisher && self.counters.received == 0)
    problems.push_back("no measured data was received");
  for (const AbandonedRun& abandoned : m_abandoned)
    warnings.push_back("the publisher restarted: run " + format_run_id(abandoned.run_id) +
                       " ended after " + format_count(abandoned.figures.counters.received) +
                       " measured messages without an end of test (partial figures under "
                       "\"Earlier runs\"); this report's verdict is for run " +
                       format_run_id(run.run_id));
  if (self.joined_late)
    warnings.push_back("joined after the measured phase began: the first measured message "
                       "received was number " + format_count(run.first_sequence) +
                       ", so the loss includes the messages sent before it");
  if (run.conflicting_ends > 0 && !run.final_acknowledged)
    problems.push_back("ENDs of this run disagreed on the number of messages sent (" +
                       format_count(run.publisher_sent) + ", then " +
                       format_count(run.conflicting_count) +
                       "), and the publisher did not confirm either: one was forged, so the "
                       "loss cannot be known");
  if (run.end_received && self.lost > 0) {
    if (m_config.max_loss_percent && loss_percent(self) > *m_config.max_loss_percent)
      problems.push_back("lost " + format_percent(loss_percent(self)) +
                         " (more than --max-loss " + format_number(*m_config.max_loss_percent) +
                         "%)");
    else
      warnings.push_back("lost " + format_count(self.lost) + " of " +
                         format_count(run.publisher_sent) + " messages");
  }

  report.success = problems.empty() && !report.interrupted;
  if (report.interrupted)
    result.status = ExitStatus::interrupted;
  else if (!problems.empty())
    result.status = failure;
  return result;
}

} // namespace

RoleResult run_subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                          LiveCounters& live)
{
  Subscriber subscriber(config, endpoint, stop, live);
  return subscriber.run();
}

} // namespace netprof
