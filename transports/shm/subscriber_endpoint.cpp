#include "endpoint_support.hpp"
#include "shm_endpoint.hpp"

#include <netprof/errors.hpp>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <iostream>
#include <new>
#include <thread>

namespace netprof::shm {

namespace {

// How often a waiting subscriber checks that its publisher and segment are still the current
// ones; when busy-polling, every this many empty polls instead (no clock read per poll).
constexpr auto health_interval = std::chrono::milliseconds(100);
constexpr std::uint32_t health_polls = 1u << 16;
// Before the publisher exists, a blocking receive retries the attach this often.
constexpr auto attach_retry = std::chrono::milliseconds(2);

// Salt for a back ring. A subscriber formats it inside its measured loop, where
// std::random_device (which may throw, and opens a file) has no place; this only needs to
// differ between sessions, not be secret.
std::uint64_t cheap_salt(std::uint64_t session) noexcept
{
  const auto now = static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());
  return (now ^ (static_cast<std::uint64_t>(getpid()) << 32) ^ session) * 0x9e3779b97f4a7c15ull;
}

// Attaches `reader` to the slot `index` it now owns.
bool attach_reader(const RingView& ring, RingReader& reader, std::size_t index) noexcept
{
  if (reader.attach())
    return true;
  // A cursor left active by a subscriber that died before the publisher could reap it;
  // the slot bit is ours now, so the cursor is too.
  ring.drop_reader(index);
  return reader.attach();
}

} // namespace

SubscriberEndpoint::SubscriberEndpoint(EndpointSettings settings, std::uint32_t id)
    : m_settings(std::move(settings)), m_id(id), m_path(object_path(m_settings.name))
{
  try_attach();
  if (m_failure.happened())
    throw TransportError(m_failure.reason());
}

SubscriberEndpoint::~SubscriberEndpoint()
{
  detach();
}

std::optional<std::size_t> SubscriberEndpoint::claim_slot(Segment& segment) noexcept
{
  SlotTable& table = segment.table();
  const std::size_t slots = segment.layout().slots;
  const std::uint64_t usable = slots >= 64 ? ~std::uint64_t{0} : slot_bit(slots) - 1;
  std::uint64_t claimed = shared(table.claimed).load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t free = ~claimed & usable;
    if (free == 0) {
      if (!m_reported_full) {
        // Once, not per retry; the run then ends as "no publisher heard" after --wait.
        m_reported_full = true;
        std::cerr << "netprof: shared-memory segment " << m_path << " has no free subscriber slot ("
                  << slots << " in use); retrying\n";
      }
      return std::nullopt;
    }
    const auto index = static_cast<std::size_t>(std::countr_zero(free));
    if (shared(table.claimed)
            .compare_exchange_weak(claimed, claimed | slot_bit(index), std::memory_order_acq_rel)) {
      SlotLine& slot = segment.slot(index);
      shared(slot.pid).store(getpid(), std::memory_order_relaxed);
      shared(slot.subscriber_id).store(m_id, std::memory_order_relaxed);
      return index;
    }
  }
}

bool SubscriberEndpoint::reserve_copy_buffer(const RingView& ring) noexcept
{
  if (ring.history() != History::keep_last)
    return true;
  const std::size_t words = (ring.max_message_size() + 7) / 8;
  if (m_copy_words < words) {
    m_copy.reset(new (std::nothrow) std::uint64_t[words]); // before any data can flow
    m_copy_words = m_copy ? words : 0;
  }
  return m_copy_words >= words;
}

bool SubscriberEndpoint::try_attach() noexcept
{
  if (m_failure.happened())
    return false;
  Segment::Found found = Segment::open_existing(m_settings.name, m_settings.owners);
  if (!found.refusal.empty())
    m_failure.record([&] { return std::move(found.refusal); });
  std::optional<Segment>& segment = found.segment;
  if (!segment)
    return false;
  const auto ring = RingView::open(segment->data_ring_memory());
  if (!ring)
    return false;

  const std::optional<std::size_t> claimed_slot = claim_slot(*segment);
  if (!claimed_slot)
    return false;
  const std::size_t index = *claimed_slot;
  SlotTable& table = segment->table();
  SlotLine& slot = segment->slot(index);
  const std::uint64_t session = shared(slot.session).fetch_add(1, std::memory_order_acq_rel) + 1;
  const auto release_slot = [&] {
    shared(slot.pid).store(0, std::memory_order_relaxed);
    shared(table.claimed).fetch_and(~slot_bit(index), std::memory_order_acq_rel);
  };

  // An earlier subscriber's records may still be there; formatting (a new salt, every header
  // invalid) makes sure none of them passes for ours.
  const std::span<std::byte> back_memory = segment->back_ring_memory(index);
  const auto back = RingView::format(back_memory, segment->layout().back_capacity, 1,
                                     History::keep_all, cheap_salt(session), true);
  if (!back || !reserve_copy_buffer(*ring)) {
    release_slot();
    return false;
  }
  RingReader reader(*ring, index, std::span<std::uint64_t>(m_copy.get(), m_copy_words));
  if (!attach_reader(*ring, reader, index)) {
    release_slot();
    return false;
  }
  shared(table.ready).fetch_or(slot_bit(index), std::memory_order_acq_rel);
  shared(table.changes).fetch_add(1, std::memory_order_acq_rel);

  m_segment = std::move(segment);
  m_ring = *ring;
  m_reader.emplace(reader);
  m_back.emplace(*back);
  m_answer_line_taken = false;
  m_slot = index;
  m_next_health_check = Clock::now() + health_interval;
  ++m_attaches;
  return true;
}

void SubscriberEndpoint::detach(bool keep_slot_bits) noexcept
{
  if (!attached())
    return;
  m_overruns += m_reader->overruns();
  m_bytes_skipped += m_reader->bytes_skipped();
  // If the publisher dropped us, the slot may already be someone else's: touch nothing.
  if (!keep_slot_bits && !m_reader->dropped()) {
    SlotTable& table = m_segment->table();
    const std::uint64_t bit = slot_bit(m_slot);
    shared(table.ready).fetch_and(~bit, std::memory_order_acq_rel);
    shared(table.changes).fetch_add(1, std::memory_order_acq_rel);
    m_reader->detach();
    shared(m_segment->slot(m_slot).pid).store(0, std::memory_order_relaxed);
    shared(table.claimed).fetch_and(~bit, std::memory_order_acq_rel);
  }
  m_reader.reset();
  m_back.reset();
  m_ring.reset();
  m_segment.reset();
}

bool SubscriberEndpoint::gave_up() noexcept
{
  if (!shm::gave_up(m_segment ? &*m_segment : nullptr, m_settings.name, false, m_failure))
    return false;
  detach(true); // the segment is zeros now, or never was ours: touch nothing in it
  return true;
}

bool SubscriberEndpoint::check_health() noexcept
{
  if (!attached())
    return false;
  if (shm::gave_up(&*m_segment, m_settings.name, true, m_failure)) {
    detach(true);
    return false;
  }
  if (m_reader->dropped()) {
    detach(true); // the publisher took our slot back (it thought us dead): join again
    return try_attach();
  }
  const SegmentHeader& header = m_segment->header();
  // Inside the measured loop (every health_polls empty polls when spinning), so the cheap
  // check: a publisher killed outright is noticed once its parent reaps it, not as a zombie.
  if (m_segment->state() == SegmentState::closed || !process_exists(header.owner_pid) ||
      !m_segment->still_named(m_path)) {
    detach(); // the publisher left or was replaced: attach to whatever comes next
    return try_attach();
  }
  return true;
}

std::size_t SubscriberEndpoint::read(MessageSink& sink) noexcept
{
  return m_reader->read(
      [this, &sink](std::span<const std::byte> message) {
        // The core may answer this record (a probe's echo) from inside on_message: the line
        // the answer goes to is taken now, while the core decodes, rather than by the echo's
        // store (docs/transport-shm.md, "Measured here": 3-15 ns off each way of a keep-last
        // ping-pong). Once per answer: taking it at every record of a stream would take it
        // from the publisher at each of its polls. Not in keep-all, where a record is handed
        // over the moment its header is seen: there the publisher's polls took the line back
        // before the echo was written, and the median round trip grew by a clock step.
        if (!m_answer_line_taken && m_ring->history() == History::keep_last) {
          m_back->prepare_next_record();
          m_answer_line_taken = true;
        }
        sink.on_message(delivery_of(message));
      },
      receive_batch);
}

SendOutcome SubscriberEndpoint::send(std::span<const std::byte> message) noexcept
{
  constexpr SendOutcome failure{SendResult::failed, SendCause::error};
  if (!attached() && !try_attach()) // no publisher yet: like a datagram nobody listens to
    return m_failure.happened() ? failure : SendOutcome{};
  switch (m_back->write(message)) {
  case WriteResult::written:
    m_answer_line_taken = false;
    ring_if_sleeping(m_segment->publisher_wake());
    return {};
  case WriteResult::full:
    return {SendResult::back_pressured, SendCause::ring_full};
  case WriteResult::too_large:
    break;
  }
  return failure;
}

SendOutcome SubscriberEndpoint::flush() noexcept
{
  if (attached())
    ring(m_segment->publisher_wake());
  return {};
}

ReceiveResult SubscriberEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (attached() || try_attach()) {
    if (read(sink) > 0)
      return ReceiveResult::received;
  }
  // A truncated segment reads as zeros (MappingGuard): nothing arrives, so this is the place.
  if (gave_up())
    return ReceiveResult::failed;
  if (timeout <= Nanoseconds::zero()) {
    if (attached() && ++m_idle_polls % health_polls == 0)
      check_health();
    return ReceiveResult::timed_out;
  }
  auto now = Clock::now();
  const auto deadline = now + std::min(timeout, longest_wait);
  for (;;) {
    if (gave_up())
      return ReceiveResult::failed;
    if (!attached()) {
      std::this_thread::sleep_for(std::min<Nanoseconds>(attach_retry, deadline - now));
      try_attach();
    } else {
      if (now >= m_next_health_check) {
        m_next_health_check = now + health_interval;
        if (!check_health())
          continue; // detached: the branch above waits and retries
      }
      const SegmentHeader& header = m_segment->header();
      wait(
          m_ring->wake_line(),
          [&] {
            return m_reader->readable() || shared(header.state).load(std::memory_order_acquire) !=
                                               static_cast<std::uint32_t>(SegmentState::ready);
          },
          std::min<Nanoseconds>(deadline - now, health_interval));
    }
    if (attached() && read(sink) > 0)
      return ReceiveResult::received;
    now = Clock::now();
    if (now >= deadline)
      return ReceiveResult::timed_out;
  }
}

EndpointFacts SubscriberEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "shm";
  facts.requested_buffer_bytes = m_settings.requested_bytes;
  facts.notes = m_settings.notes;
  facts.notes.push_back(strategy_note());
  facts.size_hint = ring_size_hint;
  if (attached()) {
    facts.local_addresses.push_back(m_path + " slot " + std::to_string(m_slot));
    facts.max_message_size = m_ring->max_message_size();
    facts.granted_receive_buffer_bytes = m_ring->capacity();
    facts.granted_send_buffer_bytes = m_segment->layout().back_capacity;
    facts.notes.push_back(history_note(m_ring->history()) + " (set by the publisher)");
    add_ring_facts(facts, *m_ring);
  } else {
    // Not there yet: describe what this -q would give, which is what the local pair uses.
    facts.local_addresses.push_back(
        m_path + (m_failure.happened() ? " (not attached)" : " (not attached yet)"));
    facts.max_message_size = max_message_size(m_settings.ring_capacity);
    facts.granted_receive_buffer_bytes = m_settings.ring_capacity;
    facts.granted_send_buffer_bytes = back_ring_capacity;
    if (!m_failure.happened())
      facts.notes.push_back("the publisher's segment did not exist yet: retrying on every send "
                            "and receive; the ring's size and history are the publisher's");
  }
  const std::uint64_t overruns = m_overruns + (m_reader ? m_reader->overruns() : 0);
  if (overruns > 0)
    facts.notes.push_back(
        std::to_string(overruns) + " overrun(s): lapped by the publisher, " +
        std::to_string(m_bytes_skipped + (m_reader ? m_reader->bytes_skipped() : 0)) +
        " B skipped");
  if (m_attaches > 1)
    facts.notes.push_back("attached " + std::to_string(m_attaches) +
                          " times (the publisher's segment was replaced or dropped us)");
  if (m_failure.happened())
    facts.notes.push_back("gave up: " + m_failure.reason());
  return facts;
}

} // namespace netprof::shm
