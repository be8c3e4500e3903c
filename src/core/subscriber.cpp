#include "subscriber.hpp"

#include "outgoing_message.hpp"
#include "waiting.hpp"

#include <netprof/records.hpp>
#include <netprof/sequence_tracker.hpp>
#include <netprof/wire.hpp>

#include <memory>
#include <string>

namespace netprof {

namespace {

constexpr auto hello_interval = std::chrono::milliseconds(100);
constexpr auto housekeeping_interval = std::chrono::milliseconds(10);
// After END, the publisher stops repeating it once it has our counters; this much quiet
// means it has them (or has given up), so the subscriber may leave.
constexpr auto quiet_after_end = std::chrono::seconds(1);

class Subscriber final : public MessageSink {
public:
  Subscriber(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live)
      : m_config(config), m_endpoint(endpoint), m_stop(stop), m_live(live),
        m_waiter(endpoint, *this, config.wait_strategy, stop), m_echo(0),
        m_control(wire::final_counters_size)
  {
  }

  RoleResult run();
  void on_message(std::span<const std::byte> message) noexcept override;

private:
  enum class Outcome { running, finished, no_publisher, publisher_silent, transport_failed };

  void on_data(const wire::Header& header, std::span<const std::byte> message,
               Clock::time_point now) noexcept;
  void on_end(const wire::Header& header, Clock::time_point now) noexcept;
  void echo(const wire::Header& probe) noexcept;
  void send_hello() noexcept;
  void send_final_counters(std::uint16_t flags = 0) noexcept;
  wire::SubscriberCounters counters() const noexcept;
  Outcome check_deadlines(Clock::time_point start, Clock::time_point now) const noexcept;
  RoleResult make_result(Outcome outcome);

  const RunConfig& m_config;
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  Waiter m_waiter;
  OutgoingMessage m_echo;
  OutgoingMessage m_control;
  SequenceTracker m_sequences;
  std::unique_ptr<RecordReader> m_records;

  std::uint64_t m_run_id = 0;
  bool m_heard_publisher = false;
  bool m_acknowledged = false;
  bool m_data_started = false;
  bool m_end_received = false;
  bool m_final_acknowledged = false;
  std::uint64_t m_publisher_sent = 0;
  Clock::time_point m_last_heard{};
  Clock::time_point m_last_end{};
  Clock::time_point m_first_measured{};
  Clock::time_point m_last_measured{};

  std::uint64_t m_datagrams = 0;
  std::uint64_t m_payload_bytes = 0;
  std::uint64_t m_wire_bytes = 0;
  std::uint64_t m_probes_echoed = 0;
  std::uint64_t m_rejected = 0;
  std::uint64_t m_warmup_received = 0;
  std::uint64_t m_records_decoded = 0;
};

void Subscriber::on_message(std::span<const std::byte> message) noexcept
{
  wire::Header header;
  if (wire::decode_header(message, header) != wire::DecodeError::none) {
    ++m_rejected;
    return;
  }
  if (header.sender_id != 0) {
    // Back-channel traffic on a shared medium: other subscribers', or our own looped back.
    return;
  }
  if (m_run_id == 0 && header.run_id != 0)
    m_run_id = header.run_id; // the first publisher we hear defines the run
  if (header.run_id != m_run_id) {
    ++m_rejected;
    return;
  }
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
      m_acknowledged = true;
    break;
  case wire::MessageKind::data:
    on_data(header, message, now);
    break;
  case wire::MessageKind::end:
    on_end(header, now);
    break;
  case wire::MessageKind::final_ack:
    if (header.sequence == m_config.id)
      m_final_acknowledged = true;
    break;
  default:
    ++m_rejected;
  }
}

void Subscriber::on_data(const wire::Header& header, std::span<const std::byte> message,
                         Clock::time_point now) noexcept
{
  m_data_started = true;
  if ((header.flags & wire::flags::warmup) != 0) {
    ++m_warmup_received; // its probes were echoed too, to warm the echo path
    return;
  }
  if ((header.flags & wire::flags::probe) != 0)
    ++m_probes_echoed;
  if (m_sequences.received() == 0)
    m_first_measured = now;
  m_last_measured = now;
  m_sequences.observe(header.sequence);
  LiveCounters::bump(m_live.received);
  const DeliveryFacts delivery = m_endpoint.last_delivery();
  m_datagrams += delivery.datagrams;
  m_payload_bytes += header.payload_length;
  m_wire_bytes += delivery.wire_bytes != 0 ? delivery.wire_bytes : message.size();

  if (header.record_count > 0) {
    if (!m_records) {
      // Built once, at the first message that carries records; never again per message.
      try {
        m_records = std::make_unique<RecordReader>(header.record_count);
      } catch (...) {
        ++m_rejected;
        return;
      }
    }
    const std::int64_t found =
        m_records->read(message.subspan(wire::header_size), header.record_count);
    if (found < 0)
      ++m_rejected;
    else
      m_records_decoded += static_cast<std::uint64_t>(found);
  }
}

void Subscriber::echo(const wire::Header& probe) noexcept
{
  wire::Header header = probe;
  header.kind = wire::MessageKind::echo;
  header.sender_id = m_config.id;
  header.record_count = 0;
  m_endpoint.send(m_echo.with_header(header));
  m_endpoint.flush();
}

void Subscriber::on_end(const wire::Header& header, Clock::time_point now) noexcept
{
  m_end_received = true;
  m_publisher_sent = header.sequence;
  m_last_end = now;
  if (!m_final_acknowledged)
    send_final_counters();
}

wire::SubscriberCounters Subscriber::counters() const noexcept
{
  wire::SubscriberCounters c;
  c.received = m_sequences.received();
  c.unique = m_sequences.unique();
  c.duplicates = m_sequences.duplicates();
  c.out_of_order = m_sequences.out_of_order();
  c.gaps = m_sequences.gaps();
  c.datagrams = m_datagrams;
  c.payload_bytes = m_payload_bytes;
  c.wire_bytes = m_wire_bytes;
  c.first_to_last_ns =
      static_cast<std::uint64_t>(std::chrono::duration_cast<Nanoseconds>(m_last_measured -
                                                                         m_first_measured)
                                     .count());
  c.probes_echoed = m_probes_echoed;
  c.rejected = m_rejected;
  c.warmup_received = m_warmup_received;
  c.records_decoded = m_records_decoded;
  return c;
}

void Subscriber::send_hello() noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::hello;
  header.sender_id = m_config.id;
  header.run_id = m_run_id;
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
  header.run_id = m_run_id;
  header.sequence = m_publisher_sent;
  const std::int64_t now_ns = to_wire_ns(Clock::now());
  header.intended_ns = now_ns;
  header.sent_ns = now_ns;
  wire::encode_counters(counters(), m_control.payload());
  m_endpoint.send(m_control.with_header(header));
  m_endpoint.flush();
}

Subscriber::Outcome Subscriber::check_deadlines(Clock::time_point start,
                                                Clock::time_point now) const noexcept
{
  if (m_final_acknowledged || (m_end_received && now - m_last_end >= quiet_after_end))
    return Outcome::finished;
  if (!m_heard_publisher)
    return now - start >= from_seconds(m_config.wait_seconds) ? Outcome::no_publisher
                                                               : Outcome::running;
  // Before data flows the publisher may still be waiting for other subscribers (up to its
  // own --wait); once data flows, silence means it is gone.
  const auto allowed = m_data_started && !m_end_received
                           ? from_seconds(m_config.idle_timeout_seconds)
                           : from_seconds(m_config.wait_seconds);
  return now - m_last_heard >= allowed ? Outcome::publisher_silent : Outcome::running;
}

RoleResult Subscriber::run()
{
  const auto start = Clock::now();
  auto next_hello = start;
  Outcome outcome = Outcome::running;
  while (outcome == Outcome::running && !m_stop.requested()) {
    const auto now = Clock::now();
    if (!m_acknowledged && !m_data_started && now >= next_hello) {
      send_hello();
      next_hello = now + hello_interval;
    }
    outcome = check_deadlines(start, now);
    if (outcome != Outcome::running)
      break;
    // Deadlines and hellos need a look only every few milliseconds; in between the waiter
    // receives at full speed.
    if (!m_waiter.wait_until(now + housekeeping_interval, [&] { return m_final_acknowledged; }))
      outcome = Outcome::transport_failed;
  }
  if (m_stop.requested() && m_heard_publisher && !m_end_received) {
    // Leaving mid-test: tell the publisher, so its report says so instead of guessing. Sent a
    // few times without waiting for an acknowledgement; it may be lost like any datagram.
    for (int i = 0; i < 3; ++i)
      send_final_counters(wire::flags::departing);
  }
  return make_result(outcome);
}

RoleResult Subscriber::make_result(Outcome outcome)
{
  RoleResult result;
  RunReport& report = result.report;
  report.run_id = m_run_id;
  report.interrupted = m_stop.requested();
  report.end_received = m_end_received;
  report.rejected = m_rejected;
  const auto sent = m_end_received ? std::optional<std::uint64_t>(m_publisher_sent) : std::nullopt;
  SubscriberResult self = subscriber_result(m_config.id, counters(), sent);
  self.probes_sent = m_probes_echoed;
  self.echoes = m_probes_echoed;
  report.self = self;

  auto& problems = report.problems;
  ExitStatus failure = ExitStatus::failed;
  switch (outcome) {
  case Outcome::no_publisher:
    problems.push_back("no publisher was heard within --wait " +
                       std::to_string(m_config.wait_seconds) +
                       " s (is it running, and are the addresses right?)");
    failure = ExitStatus::runtime;
    break;
  case Outcome::publisher_silent:
    problems.push_back(m_data_started
                           ? "the publisher went silent before the end of the test (killed?)"
                           : "the publisher acknowledged us but never started sending");
    break;
  case Outcome::transport_failed:
    problems.push_back("the transport failed while receiving");
    failure = ExitStatus::runtime;
    break;
  case Outcome::running:
  case Outcome::finished:
    break;
  }
  if (!report.interrupted && outcome != Outcome::no_publisher && self.counters.received == 0)
    problems.push_back("no measured data was received");
  if (m_end_received && self.lost > 0) {
    if (m_config.max_loss_percent && loss_percent(self) > *m_config.max_loss_percent)
      problems.push_back("lost " + std::to_string(loss_percent(self)) +
                         "% (more than --max-loss " +
                         std::to_string(*m_config.max_loss_percent) + "%)");
    else
      report.warnings.push_back("lost " + std::to_string(self.lost) + " of " +
                                std::to_string(m_publisher_sent) + " messages");
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
