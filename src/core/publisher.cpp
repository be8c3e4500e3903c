#include "publisher.hpp"

#include "outgoing_message.hpp"
#include "probe_ring.hpp"
#include "waiting.hpp"

#include <netprof/histogram.hpp>
#include <netprof/pacer.hpp>
#include <netprof/records.hpp>
#include <netprof/report.hpp>
#include <netprof/wire.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <sched.h>
#include <string>

namespace netprof {

namespace {

constexpr std::size_t max_subscribers = 1024;
constexpr std::size_t distribution_bins = 16;
constexpr auto echo_poll_interval = std::chrono::microseconds(2);
constexpr auto end_resend_interval = std::chrono::milliseconds(20);
constexpr auto end_collection_time = std::chrono::seconds(3);
constexpr auto end_collection_time_interrupted = std::chrono::milliseconds(500);
// Before the measured phase a hello alone admits a subscriber, up to --subscribers plus this
// many more (subscribers started beyond --subscribers are normal; a flood of ids is not).
constexpr std::size_t subscribers_beyond_expected = 8;
// Hellos waiting to be proven (see Candidate); the least recently heard gives way when full.
constexpr std::size_t max_candidates = 64;

std::uint64_t random_run_id()
{
  std::random_device device;
  std::uint64_t id = 0;
  while (id == 0) // 0 means "no run yet" in a subscriber's hello
    id = (static_cast<std::uint64_t>(device()) << 32) ^ device() ^
         static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  return id;
}

struct SubscriberState {
  std::uint32_t id = 0;
  bool joined_late = false;
  bool counters_received = false;
  wire::SubscriberCounters counters;
  std::uint64_t probes_before_join = 0;
  std::uint64_t echoes = 0;
  bool any_echo = false;
  std::uint64_t last_echo_sequence = 0;
  bool left_early = false;
  Clock::time_point last_heard{};
  // Which process speaks for this id (wire.hpp, instance tag): a new tag mid-run is a restart.
  std::uint32_t instance = 0;
  std::uint32_t retired_instance = 0; // the one before the last restart
  std::uint32_t restarts = 0;
  Clock::time_point restarted_at{};   // the last restart after the measured phase began
  std::unique_ptr<Histogram> rtt = std::make_unique<Histogram>();
};

// A hello that has not earned a place in the report: a new id once the measured phase began
// (or beyond the admission cap), or a known id's new instance tag. Anyone can send a hello, so
// it is acknowledged (a real late joiner needs that to take the run) but not believed until the
// same id and tag send what only a process taking part in this run can: an echo of a real probe
// of this run, or final counters of this run. Hellos never proven count as rejected.
struct Candidate {
  std::uint32_t id = 0;
  std::uint32_t instance = 0;
  std::uint64_t hellos = 0;
  std::uint64_t probes_at_hello = 0; // measured probes sent before its first hello
  bool hello_while_measuring = false;
  Clock::time_point first_heard{};
  Clock::time_point last_heard{};
};

class Publisher final : public MessageSink {
public:
  Publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop, LiveCounters& live)
      : m_config(config), m_endpoint(endpoint), m_stop(stop), m_live(live),
        m_waiter(endpoint, *this, config.wait_strategy, stop), m_run_id(random_run_id()),
        m_data(config.payload_size), m_control(0)
  {
    m_subscribers.reserve(max_subscribers);
    m_candidates.reserve(max_candidates);
    if (config.num_vars > 0)
      RecordLayout(config.payload_size, config.num_vars).write(m_data.payload());
    else
      std::fill(m_data.payload().begin(), m_data.payload().end(), std::byte{0x5a});
    // Only the header of m_data is rewritten from here on (with_header).
    m_endpoint.announce_payload(m_data.payload());
  }

  RoleResult run();
  void on_message(const Delivery& delivery) noexcept override;

private:
  enum class Phase { waiting, warmup, measuring, ending };

  bool wait_for_subscribers();
  bool send_phase(bool warmup);
  bool send_data(bool warmup, bool probe, std::uint64_t sequence, Clock::time_point intended,
                 Clock::time_point now) noexcept;
  bool wait_for_echoes(Clock::time_point deadline) noexcept;
  void end_test();
  bool send_control(wire::MessageKind kind, std::uint64_t sequence) noexcept;
  bool send_with_retry(std::span<const std::byte> message) noexcept;

  void on_hello(const wire::Header& header, Clock::time_point now) noexcept;
  void on_echo(const wire::Header& header, Clock::time_point now) noexcept;
  void on_final_counters(const wire::Header& header, std::span<const std::byte> payload,
                         Clock::time_point now) noexcept;
  bool follow_instance(SubscriberState& subscriber, const wire::Header& header) noexcept;
  SubscriberState* find_subscriber(std::uint32_t id) noexcept;
  SubscriberState* add_subscriber(std::uint32_t id) noexcept;
  SubscriberState* find_or_admit(const wire::Header& proof) noexcept;
  bool admits_on_hello() const noexcept;
  bool measured_phase_began() const noexcept;
  Candidate* find_candidate(std::uint32_t id, std::uint32_t instance) noexcept;
  void note_candidate(const wire::Header& hello, Clock::time_point now) noexcept;
  void forget_candidate(const Candidate& candidate) noexcept;
  bool all_counters_received() const noexcept;
  RoleResult make_result(ExitStatus failure_status);

  const RunConfig& m_config;
  Endpoint& m_endpoint;
  const StopFlag& m_stop;
  LiveCounters& m_live;
  Waiter m_waiter;
  const std::uint64_t m_run_id;

  OutgoingMessage m_data;
  OutgoingMessage m_control;
  ProbeRing m_probes;
  std::vector<SubscriberState> m_subscribers;
  std::vector<Candidate> m_candidates;
  Phase m_phase = Phase::waiting;

  Histogram m_rtt;
  Histogram m_rtt_uncorrected;
  Histogram m_fanout_skew;
  std::uint64_t m_sent = 0;
  std::uint64_t m_probes_sent = 0;
  std::uint64_t m_echoes = 0;
  std::uint64_t m_echoes_late = 0;
  std::uint64_t m_rejected = 0;
  std::uint64_t m_back_pressure_waits = 0;
  bool m_transport_failed = false;
  Clock::time_point m_measure_start{};
  Clock::time_point m_measure_end{};

  // The probe whose echoes the sender is waiting for (ping-pong), or polling for (stream).
  std::uint64_t m_current_probe = 0;
  bool m_current_probe_warmup = false;
  bool m_awaiting_echoes = false;
  std::size_t m_current_echoes = 0;
  Clock::time_point m_current_probe_deadline{};
  PeerHandle m_sender; // of the message on_message is handling: adopted if it says hello
};

SubscriberState* Publisher::find_subscriber(std::uint32_t id) noexcept
{
  for (auto& subscriber : m_subscribers)
    if (subscriber.id == id)
      return &subscriber;
  return nullptr;
}

SubscriberState* Publisher::add_subscriber(std::uint32_t id) noexcept
{
  if (m_subscribers.size() >= max_subscribers)
    return nullptr;
  // A join is a control event, not the per-message path: its histogram may allocate here.
  try {
    SubscriberState& added = m_subscribers.emplace_back();
    added.id = id;
    added.joined_late = measured_phase_began();
    added.probes_before_join = m_probes_sent;
    return &added;
  } catch (...) {
    return nullptr;
  }
}

bool Publisher::measured_phase_began() const noexcept
{
  return m_phase == Phase::measuring || m_phase == Phase::ending;
}

bool Publisher::admits_on_hello() const noexcept
{
  const std::size_t cap =
      std::min(max_subscribers, m_config.subscribers + subscribers_beyond_expected);
  return !measured_phase_began() && m_subscribers.size() < cap;
}

Candidate* Publisher::find_candidate(std::uint32_t id, std::uint32_t instance) noexcept
{
  for (auto& candidate : m_candidates)
    if (candidate.id == id && candidate.instance == instance)
      return &candidate;
  return nullptr;
}

void Publisher::note_candidate(const wire::Header& hello, Clock::time_point now) noexcept
{
  const std::uint32_t tag = wire::instance_tag(hello);
  if (Candidate* known = find_candidate(hello.sender_id, tag)) {
    ++known->hellos;
    known->last_heard = now;
    return;
  }
  Candidate* slot = nullptr;
  if (m_candidates.size() < max_candidates) {
    slot = &m_candidates.emplace_back(); // reserved: never allocates
  } else {
    // Full (a flood): the one heard least recently gives way, its hellos counted as rejected.
    slot = &*std::min_element(m_candidates.begin(), m_candidates.end(),
                              [](const Candidate& a, const Candidate& b) {
                                return a.last_heard < b.last_heard;
                              });
    m_rejected += slot->hellos;
  }
  *slot = Candidate{hello.sender_id, tag, 1, m_probes_sent, measured_phase_began(), now, now};
  // A real late joiner or restarted process may listen on an address not known yet: without
  // this it would never hear the acknowledgement nor the data that let it prove itself.
  m_endpoint.adopt_peer(m_sender);
}

void Publisher::forget_candidate(const Candidate& candidate) noexcept
{
  const auto at = m_candidates.begin() + (&candidate - m_candidates.data());
  m_candidates.erase(at); // no allocation: elements only move down
}

SubscriberState* Publisher::find_or_admit(const wire::Header& proof) noexcept
{
  if (SubscriberState* known = find_subscriber(proof.sender_id))
    return known;
  // Only an id whose hello was acknowledged can have taken part: without a hello this is a
  // forgery, or a stray of another run's subscriber.
  Candidate* candidate = find_candidate(proof.sender_id, wire::instance_tag(proof));
  if (candidate == nullptr)
    return nullptr;
  SubscriberState* admitted = add_subscriber(proof.sender_id);
  if (admitted == nullptr)
    return nullptr;
  admitted->instance = candidate->instance;
  admitted->joined_late = candidate->hello_while_measuring;
  admitted->probes_before_join = candidate->probes_at_hello;
  forget_candidate(*candidate);
  return admitted;
}

// Called only with a message that proves it belongs to this run (an echo of a real probe, final
// counters of this run): a hello alone never retires the process we know (see Candidate).
bool Publisher::follow_instance(SubscriberState& subscriber, const wire::Header& header) noexcept
{
  const std::uint32_t tag = wire::instance_tag(header);
  if (tag == 0 || tag == subscriber.instance)
    return true; // untagged (an older subscriber), or the process we know
  if (subscriber.instance == 0) {
    subscriber.instance = tag;
    return true;
  }
  if (tag == subscriber.retired_instance)
    return false; // still in flight from the process a restart replaced: not ours any more
  // A new process took this id over (the old one was killed and restarted, most likely). It
  // restarted when it said hello; whatever the old one reported is void: the new one's
  // counters will replace it.
  bool while_measuring = measured_phase_began();
  Clock::time_point when = Clock::now();
  if (const Candidate* candidate = find_candidate(subscriber.id, tag)) {
    while_measuring = candidate->hello_while_measuring;
    when = candidate->first_heard;
    forget_candidate(*candidate);
  }
  subscriber.retired_instance = subscriber.instance;
  subscriber.instance = tag;
  ++subscriber.restarts;
  if (while_measuring)
    subscriber.restarted_at = std::max(when, m_measure_start);
  subscriber.counters_received = false;
  subscriber.counters = {};
  subscriber.left_early = false;
  m_endpoint.adopt_peer(m_sender); // it may listen on a new address
  return true;
}

bool Publisher::all_counters_received() const noexcept
{
  // An unproven hello may be a late joiner whose counters are its proof: END keeps going for it
  // (bounded by end_collection_time, which is all a forged hello can cost).
  return m_candidates.empty() && std::all_of(m_subscribers.begin(), m_subscribers.end(),
                     [](const SubscriberState& s) { return s.counters_received; });
}

void Publisher::on_message(const Delivery& delivery) noexcept
{
  // Before anything else: an echo's round trip ends when it arrives, not once it is decoded.
  const auto arrived = Clock::now();
  m_sender = delivery.sender;
  wire::Header header;
  if (wire::decode_header(delivery.bytes, header) != wire::DecodeError::none) {
    ++m_rejected;
    return;
  }
  if (header.sender_id == 0) {
    // On a shared medium the publisher hears its own traffic; anything else from id 0 is
    // another publisher, which is not ours to trust.
    if (header.run_id != m_run_id)
      ++m_rejected;
    return;
  }
  switch (header.kind) {
  case wire::MessageKind::hello:
    on_hello(header, arrived);
    break;
  case wire::MessageKind::echo:
    on_echo(header, arrived);
    break;
  case wire::MessageKind::final_counters:
    on_final_counters(header, delivery.bytes.subspan(wire::header_size), arrived);
    break;
  default:
    ++m_rejected;
  }
}

void Publisher::on_hello(const wire::Header& header, Clock::time_point now) noexcept
{
  if (header.run_id != 0 && header.run_id != m_run_id) {
    ++m_rejected;
    return;
  }
  const std::uint32_t tag = wire::instance_tag(header);
  SubscriberState* subscriber = find_subscriber(header.sender_id);
  if (subscriber != nullptr && tag != 0 && subscriber->instance != 0 &&
      tag != subscriber->instance) {
    if (tag == subscriber->retired_instance) {
      ++m_rejected; // still in flight from a process a restart replaced
      return;
    }
    // Another process names a known id: a restart, or a forgery. Not believed yet (Candidate);
    // the process we know keeps its place meanwhile.
    subscriber = nullptr;
  } else if (subscriber == nullptr && admits_on_hello()) {
    subscriber = add_subscriber(header.sender_id);
    if (subscriber == nullptr) {
      ++m_rejected;
      return;
    }
    m_endpoint.adopt_peer(m_sender);
  }
  if (subscriber != nullptr) {
    if (subscriber->instance == 0)
      subscriber->instance = tag;
    subscriber->last_heard = now;
  } else {
    note_candidate(header, now);
  }
  // Every hello is answered: the subscriber repeats it until one acknowledgement gets through.
  send_control(wire::MessageKind::hello_ack, header.sender_id);
}

void Publisher::on_echo(const wire::Header& header, Clock::time_point now) noexcept
{
  const bool warmup = (header.flags & wire::flags::warmup) != 0;
  ProbeRing::Entry* probe =
      header.run_id != m_run_id
          ? nullptr
          : m_probes.find(header.sequence, warmup, header.intended_ns, header.sent_ns);
  // An echo of a real probe of this run is the proof a late joiner or a restarted process
  // needs (see Candidate): a hello alone admitted neither.
  SubscriberState* subscriber = probe == nullptr ? nullptr : find_or_admit(header);
  if (subscriber == nullptr || !follow_instance(*subscriber, header)) {
    ++m_rejected;
    return;
  }
  subscriber->last_heard = now;
  const bool current = m_awaiting_echoes && header.sequence == m_current_probe &&
                       warmup == m_current_probe_warmup;
  if (warmup) {
    if (current)
      ++m_current_echoes;
    return;
  }
  if (subscriber->any_echo && header.sequence <= subscriber->last_echo_sequence) {
    ++m_rejected; // a duplicate, or one overtaken by a later probe's echo
    return;
  }
  subscriber->any_echo = true;
  subscriber->last_echo_sequence = header.sequence;

  const std::int64_t now_ns = to_wire_ns(now);
  const std::int64_t rtt = now_ns - header.intended_ns;
  m_rtt.record(rtt);
  m_rtt_uncorrected.record(now_ns - header.sent_ns);
  subscriber->rtt->record(rtt);
  ++subscriber->echoes;
  if (probe->echoes++ == 0)
    probe->first_echo_ns = now_ns;
  probe->last_echo_ns = now_ns;
  if (probe->expected_echoes >= 2 && probe->echoes == probe->expected_echoes)
    m_fanout_skew.record(probe->last_echo_ns - probe->first_echo_ns);
  ++m_echoes;
  LiveCounters::bump(m_live.echoes);
  if (current)
    ++m_current_echoes;
  else if (m_config.mode == Mode::ping_pong)
    ++m_echoes_late; // its probe had already timed out
}

void Publisher::on_final_counters(const wire::Header& header, std::span<const std::byte> payload,
                                  Clock::time_point now) noexcept
{
  wire::SubscriberCounters counters;
  if (header.run_id != m_run_id || !wire::decode_counters(payload, counters)) {
    ++m_rejected;
    return;
  }
  // Final counters answer an END, whose count they carry back in `sequence`: before our END,
  // or with another count, they answer a forged one. A departing subscriber sends its
  // counters so far, with whatever END it had (none: 0).
  const bool departing = (header.flags & wire::flags::departing) != 0;
  if (!departing && (m_phase != Phase::ending || header.sequence != m_sent)) {
    ++m_rejected;
    return;
  }
  // An id we never acknowledged cannot have taken part; one we acknowledged but did not yet
  // believe (a late joiner that echoed no probe) proves itself with these.
  SubscriberState* subscriber = find_or_admit(header);
  if (subscriber == nullptr || !follow_instance(*subscriber, header)) {
    ++m_rejected;
    return;
  }
  subscriber->counters = counters;
  subscriber->counters_received = true;
  subscriber->left_early = departing;
  subscriber->last_heard = now;
  send_control(wire::MessageKind::final_ack, header.sender_id);
}

bool Publisher::send_control(wire::MessageKind kind, std::uint64_t sequence) noexcept
{
  wire::Header header;
  header.kind = kind;
  header.run_id = m_run_id;
  header.sequence = sequence;
  const std::int64_t now_ns = to_wire_ns(Clock::now());
  header.intended_ns = now_ns;
  header.sent_ns = now_ns;
  const bool sent = m_endpoint.send(m_control.with_header(header)) == SendResult::sent;
  return m_endpoint.flush() == SendResult::sent && sent;
}

bool Publisher::send_with_retry(std::span<const std::byte> message) noexcept
{
  // The first attempt reads no clock: it sits between the probe's stamp and its send.
  SendResult result = m_endpoint.send_announced(message);
  if (result == SendResult::sent)
    return true;
  // A back-pressured transport is waited on, draining the back channel meanwhile, but never
  // forever: a stuck peer must not hang the publisher.
  const auto give_up = Clock::now() + from_seconds(m_config.wait_seconds);
  for (;; result = m_endpoint.send_announced(message)) {
    if (result == SendResult::sent)
      return true;
    if (result == SendResult::failed || m_stop.requested() || Clock::now() >= give_up)
      return false;
    ++m_back_pressure_waits;
    if (!m_waiter.poll())
      return false;
    // Unless told to spin, give the core away: on a pinned CPU the transport's own I/O
    // thread may be what has to run before there is room again.
    if (m_config.wait_strategy != WaitStrategy::spin)
      sched_yield();
  }
}

bool Publisher::wait_for_subscribers()
{
  const auto deadline = Clock::now() + from_seconds(m_config.wait_seconds);
  const std::size_t expected = m_config.subscribers;
  if (!m_waiter.wait_until(deadline, [&] { return m_subscribers.size() >= expected; })) {
    m_transport_failed = true;
    return false;
  }
  return m_subscribers.size() >= expected;
}

bool Publisher::send_data(bool warmup, bool probe, std::uint64_t sequence,
                          Clock::time_point intended, Clock::time_point now) noexcept
{
  wire::Header header;
  header.kind = wire::MessageKind::data;
  header.flags = static_cast<std::uint16_t>((probe ? wire::flags::probe : 0) |
                                            (warmup ? wire::flags::warmup : 0));
  header.run_id = m_run_id;
  header.sequence = sequence;
  header.intended_ns = to_wire_ns(intended);
  header.sent_ns = to_wire_ns(now);
  header.record_count = m_config.num_vars;
  const bool sent = send_with_retry(m_data.with_header(header));
  if (sent && probe) {
    // Remembered after the send, which keeps this work out of the round trip: echoes are
    // handled only inside receive(), and nothing calls it between a successful send and here.
    // (A probe still being retried is not out yet, so the echoes handled meanwhile are older.)
    m_probes.remember(sequence, warmup, header.intended_ns, header.sent_ns,
                      static_cast<std::uint32_t>(m_subscribers.size()));
    m_current_probe = sequence;
    m_current_probe_warmup = warmup;
    m_current_echoes = 0;
    m_awaiting_echoes = true;
    m_current_probe_deadline = now + from_seconds(m_config.probe_timeout_seconds);
  }
  if (!sent || (probe && m_endpoint.flush() == SendResult::failed)) {
    m_awaiting_echoes = false;
    return false;
  }
  return true;
}

bool Publisher::wait_for_echoes(Clock::time_point deadline) noexcept
{
  const bool ok = m_waiter.wait_until(
      deadline, [&] { return m_current_echoes >= m_subscribers.size(); });
  m_awaiting_echoes = false;
  return ok;
}

bool Publisher::send_phase(bool warmup)
{
  const auto start = Clock::now();
  const Pacer pacer(m_config.send_hz, start);
  const auto length = warmup ? from_seconds(m_config.warmup_seconds)
                             : from_seconds(m_config.test_seconds);
  const std::optional<std::uint64_t> count = warmup ? m_config.warmup_count : m_config.count;
  const auto end_time = start + length;
  const bool ping_pong = m_config.mode == Mode::ping_pong;
  const auto probe_period = from_seconds(1.0 / m_config.probe_hz);
  auto next_probe = start;
  auto last_poll = start;

  if (!warmup) {
    m_measure_start = start;
    m_live.measuring.store(true, std::memory_order_relaxed);
  }
  std::uint64_t index = 0;
  for (;; ++index) {
    if (m_stop.requested())
      break;
    if (count && index >= *count)
      break;
    if (pacer.paced()) {
      const auto due = pacer.due(index);
      if (!count && due >= end_time)
        break;
      if (m_endpoint.flush() == SendResult::failed)
        return false;
      if (!m_waiter.wait_until(due, [] { return false; }))
        return false;
      if (m_stop.requested())
        break;
    }
    const auto now = Clock::now();
    if (!count && now >= end_time)
      break;
    // Paced, the stamp is when the message was due, however late it went (no coordinated
    // omission); unpaced, it is now.
    const auto intended = pacer.paced() ? pacer.due(index) : now;

    bool probe = ping_pong;
    if (!ping_pong && now >= next_probe) {
      probe = true;
      next_probe += probe_period;
      if (next_probe <= now) // after a stall, do not burst probes to catch up
        next_probe = now + probe_period;
    }
    if (!send_data(warmup, probe, index, intended, now))
      return false;
    if (!warmup) {
      ++m_sent;
      if (probe)
        ++m_probes_sent;
      LiveCounters::bump(m_live.sent);
    }

    if (ping_pong) {
      if (!wait_for_echoes(m_current_probe_deadline))
        return false;
    } else if ((m_awaiting_echoes && now - last_poll >= echo_poll_interval) ||
               (index & 63) == 0) {
      // While a probe is out, look for its echo often enough that it is timed within a
      // couple of microseconds, but not after every send: an empty poll can cost more than
      // a send (about 1 us over ZeroMQ). Otherwise only now and then, for late joiners.
      last_poll = now;
      if (!m_waiter.poll())
        return false;
      if (m_awaiting_echoes &&
          (m_current_echoes >= m_subscribers.size() || now >= m_current_probe_deadline))
        m_awaiting_echoes = false;
    }
  }
  if (m_endpoint.flush() == SendResult::failed)
    return false;
  if (!warmup) {
    m_measure_end = Clock::now();
    m_live.measuring.store(false, std::memory_order_relaxed);
  }
  return true;
}

void Publisher::end_test()
{
  m_phase = Phase::ending;
  m_awaiting_echoes = false;
  const auto start = Clock::now();
  const auto deadline =
      start + (m_stop.requested() ? Nanoseconds(end_collection_time_interrupted)
                                  : Nanoseconds(end_collection_time));
  // The END is repeated because it may be lost; each copy carries the total sent, and every
  // copy that reaches a subscriber brings its final counters back.
  const StopFlag never_stop;
  Waiter waiter(m_endpoint, *this, m_config.wait_strategy, never_stop);
  int ends_sent = 0;
  for (auto now = start; now < deadline; now = Clock::now()) {
    if (ends_sent >= 3 && all_counters_received())
      break;
    send_control(wire::MessageKind::end, m_sent);
    ++ends_sent;
    const auto next = std::min(now + end_resend_interval, deadline);
    if (!waiter.wait_until(next, [] { return false; })) {
      m_transport_failed = true;
      return;
    }
  }
}

// Says when a subscriber without final counters was last heard, which tells a process that
// died mid-run (killed, crashed) from counters lost at the very end.
std::string vanished_problem(const std::string& name, double last_heard_seconds,
                             double measured_seconds)
{
  std::string text = name + " vanished: it sent no final counters, and ";
  if (last_heard_seconds < 0)
    return text + "was not heard during the measured phase (killed, crashed, or cut off?)";
  return text + "was last heard " + format_number(last_heard_seconds) + " s into the " +
         format_number(measured_seconds) +
         " s measured phase (killed, crashed, or its counters were lost?)";
}

RoleResult Publisher::make_result(ExitStatus failure_status)
{
  RoleResult result;
  RunReport& report = result.report;
  report.run_id = m_run_id;
  report.interrupted = m_stop.requested();
  report.messages_sent = m_sent;
  report.probes_sent = m_probes_sent;
  report.echoes_received = m_echoes;
  report.echoes_late = m_echoes_late;
  report.rtt = m_rtt.summarize();
  report.rtt_uncorrected = m_rtt_uncorrected.summarize();
  report.fanout_skew = m_fanout_skew.summarize();
  report.rtt_bins = log_bins(m_rtt, distribution_bins);
  report.rejected = m_rejected;
  for (const Candidate& candidate : m_candidates)
    report.rejected += candidate.hellos; // never proven: a hello is not a subscriber
  if (m_measure_end > m_measure_start)
    report.measured_seconds = to_seconds(m_measure_end - m_measure_start);

  for (const SubscriberState& state : m_subscribers) {
    SubscriberResult sub = state.counters_received
                               ? subscriber_result(state.id, state.counters, m_sent)
                               : SubscriberResult{};
    sub.id = state.id;
    sub.counters_received = state.counters_received;
    sub.joined_late = state.joined_late;
    sub.left_early = state.left_early;
    if (m_measure_start != Clock::time_point{} && state.last_heard >= m_measure_start)
      sub.last_heard_seconds = to_seconds(state.last_heard - m_measure_start);
    sub.probes_sent = m_probes_sent - state.probes_before_join;
    sub.echoes = state.echoes;
    sub.rtt = state.rtt->summarize();
    sub.restarts = state.restarts;
    if (state.restarted_at != Clock::time_point{} && m_measure_start != Clock::time_point{})
      sub.restarted_seconds = to_seconds(state.restarted_at - m_measure_start);
    if (!state.counters_received)
      sub.outcome = SubscriberOutcome::vanished;
    else if (state.left_early)
      sub.outcome = SubscriberOutcome::left_early;
    else if (sub.restarted_seconds >= 0)
      sub.outcome = SubscriberOutcome::restarted;
    report.subscribers.push_back(sub);
  }

  auto& problems = report.problems;
  if (m_transport_failed)
    problems.push_back("the transport failed while sending or receiving");
  if (m_phase == Phase::waiting) {
    problems.push_back("waited " + format_number(m_config.wait_seconds) + " s for " +
                       std::to_string(m_config.subscribers) + " subscriber(s); " +
                       std::to_string(m_subscribers.size()) + " announced themselves");
  } else {
    if (m_subscribers.empty())
      problems.push_back("no subscriber took part");
    for (const SubscriberResult& sub : report.subscribers) {
      const std::string name = "subscriber " + std::to_string(sub.id);
      if (sub.outcome == SubscriberOutcome::left_early)
        problems.push_back(name + " left before the end of the test");
      else if (sub.outcome == SubscriberOutcome::vanished)
        problems.push_back(vanished_problem(name, sub.last_heard_seconds,
                                            report.measured_seconds));
      else if (sub.outcome == SubscriberOutcome::restarted)
        problems.push_back(name + " restarted " + format_number(sub.restarted_seconds) +
                           " s into the measured phase (a new process took over its id): its "
                           "figures are the new process's only, a part of the run");
      else if (sub.counters.received == 0)
        problems.push_back(name + " received no measured data");
      else if (m_config.max_loss_percent && loss_percent(sub) > *m_config.max_loss_percent)
        problems.push_back(name + " lost " + std::to_string(loss_percent(sub)) +
                           "% (more than --max-loss " +
                           std::to_string(*m_config.max_loss_percent) + "%)");
      else if (sub.lost > 0)
        report.warnings.push_back(name + " lost " + std::to_string(sub.lost) + " of " +
                                  std::to_string(m_sent) + " messages");
      if (sub.restarts > 0 && sub.restarted_seconds < 0)
        report.warnings.push_back(name + " restarted before the measured phase (a new process "
                                         "took over its id); its figures cover the whole phase");
      if (sub.joined_late)
        report.warnings.push_back(name + " joined after the measured phase began");
    }
    if (m_probes_sent > 0 && m_echoes == 0 && !m_subscribers.empty())
      problems.push_back("no probe was echoed, so there is no latency figure");
    if (m_echoes_late > 0)
      report.warnings.push_back(std::to_string(m_echoes_late) +
                                " echoes came back after --probe-timeout");
  }
  if (m_back_pressure_waits > 0)
    report.warnings.push_back("the transport pushed back " +
                              std::to_string(m_back_pressure_waits) + " times");

  report.success = problems.empty() && !report.interrupted;
  if (report.interrupted)
    result.status = ExitStatus::interrupted;
  else if (!problems.empty())
    result.status = failure_status;
  return result;
}

RoleResult Publisher::run()
{
  if (!wait_for_subscribers()) {
    if (m_stop.requested())
      return make_result(ExitStatus::interrupted);
    return make_result(ExitStatus::runtime);
  }
  m_phase = Phase::warmup;
  const bool warmup_wanted = m_config.warmup_count ? *m_config.warmup_count > 0
                                                   : m_config.warmup_seconds > 0;
  bool ok = !warmup_wanted || send_phase(true);
  if (ok && !m_stop.requested()) {
    m_phase = Phase::measuring;
    ok = send_phase(false);
  }
  if (!ok)
    m_transport_failed = true;
  end_test();
  return make_result(m_transport_failed ? ExitStatus::runtime : ExitStatus::failed);
}

} // namespace

RoleResult run_publisher(const RunConfig& config, Endpoint& endpoint, const StopFlag& stop,
                         LiveCounters& live)
{
  Publisher publisher(config, endpoint, stop, live);
  return publisher.run();
}

} // namespace netprof
