#include "endpoint_support.hpp"
#include "shm_endpoint.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <bit>

namespace netprof::shm {

namespace {

// How often the publisher looks for subscribers that died without leaving, and how often a
// keep_all publisher that is pushed back looks at the one holding it up (a kill(pid, 0) each).
constexpr auto reap_interval = std::chrono::milliseconds(100);
constexpr auto blocked_reap_interval = std::chrono::milliseconds(1);

RingView open_data_ring(const Segment& segment)
{
  const auto ring = RingView::open(segment.data_ring_memory());
  if (!ring)
    throw TransportError("the shared-memory data ring did not format");
  return *ring;
}

} // namespace

PublisherEndpoint::PublisherEndpoint(EndpointSettings settings)
    : m_settings(std::move(settings)), m_ring([&] {
        Segment::Created created = Segment::create(m_settings.name, m_settings.ring_capacity,
                                                   m_settings.history, m_settings.owners);
        m_segment = std::move(created.segment);
        m_replaced_note = std::move(created.replaced_note);
        return open_data_ring(m_segment);
      }()),
      m_writer(m_ring)
{
}

PublisherEndpoint::~PublisherEndpoint()
{
  shared(m_segment.header().state)
      .store(static_cast<std::uint32_t>(SegmentState::closed), std::memory_order_release);
  ring(m_ring.wake_line()); // sleeping subscribers look at the state now, not at their timeout
  m_segment.unlink_if_ours(m_settings.name);
}

SendOutcome PublisherEndpoint::send(std::span<const std::byte> message) noexcept
{
  const WriteResult result = m_writer.write(message);
  if (result != WriteResult::written)
    return refused(result);
  ring_if_sleeping(m_ring.wake_line());
  return {};
}

SendOutcome PublisherEndpoint::refused(WriteResult result) noexcept
{
  if (result == WriteResult::too_large) {
    return {SendResult::failed, SendCause::error};
  }
  // keep_all and full: whoever holds us up may have died; looking costs syscalls, so only
  // now and then while the core retries.
  const auto now = Clock::now();
  if (now >= m_next_reap) {
    m_next_reap = now + blocked_reap_interval;
    reap_dead_subscribers();
  }
  if (gave_up(&m_segment, m_settings.name, false, m_failure)) {
    return {SendResult::failed, SendCause::error};
  }
  return {SendResult::back_pressured, SendCause::ring_full};
}

Loan PublisherEndpoint::claim(std::size_t size) noexcept
{
  Loan loan;
  const RingWriter::Lent lent =
      size == 0 ? RingWriter::Lent{{}, false, WriteResult::too_large} : m_writer.lend(size);
  if (lent.result != WriteResult::written) {
    const SendOutcome refusal = refused(lent.result);
    loan.refusal = refusal.result;
    loan.cause = refusal.cause;
    return loan;
  }
  loan.bytes = lent.bytes;
  loan.holds_payload = lent.holds_payload;
  return loan;
}

SendResult PublisherEndpoint::commit(const Loan& /*loan*/) noexcept
{
  m_writer.commit_lent();
  ring_if_sleeping(m_ring.wake_line());
  return SendResult::sent;
}

void PublisherEndpoint::abandon(const Loan& /*loan*/) noexcept
{
  m_writer.abandon_lent();
}

SendOutcome PublisherEndpoint::flush() noexcept
{
  ring(m_ring.wake_line());
  return {};
}

void PublisherEndpoint::track_ready_slots() noexcept
{
  SlotTable& table = m_segment.table();
  const std::uint64_t changes = shared(table.changes).load(std::memory_order_acquire);
  if (changes == m_seen_changes)
    return; // nobody joined or left since the last poll
  m_seen_changes = changes;
  const std::uint64_t ready = shared(table.ready).load(std::memory_order_acquire);
  for (std::uint64_t gone = m_tracked_mask & ~ready; gone != 0; gone &= gone - 1)
    m_back[static_cast<std::size_t>(std::countr_zero(gone))].tracked = false;
  for (std::uint64_t bits = ready; bits != 0; bits &= bits - 1) {
    const auto index = static_cast<std::size_t>(std::countr_zero(bits));
    BackChannel& channel = m_back[index];
    const std::uint64_t session =
        shared(m_segment.slot(index).session).load(std::memory_order_acquire);
    if (channel.tracked && channel.session == session)
      continue;
    // A new subscriber in this slot: its back ring was formatted before the ready bit was set.
    const auto back = RingView::open(m_segment.back_ring_memory(index));
    if (!back) {
      channel.tracked = false;
      continue;
    }
    channel.reader.emplace(*back, 0, std::span<std::uint64_t>());
    channel.reader->adopt();
    channel.session = session;
    channel.tracked = true;
  }
  m_tracked_mask = ready;
}

std::size_t PublisherEndpoint::poll_back_rings(MessageSink& sink) noexcept
{
  track_ready_slots();
  std::size_t delivered = 0;
  for (std::uint64_t bits = m_tracked_mask; bits != 0; bits &= bits - 1) {
    BackChannel& channel = m_back[static_cast<std::size_t>(std::countr_zero(bits))];
    if (channel.tracked)
      delivered += channel.reader->read(
          [&sink](std::span<const std::byte> message) { sink.on_message(delivery_of(message)); },
          receive_batch);
  }
  return delivered;
}

bool PublisherEndpoint::back_readable() noexcept
{
  track_ready_slots();
  for (std::uint64_t bits = m_tracked_mask; bits != 0; bits &= bits - 1) {
    const BackChannel& channel = m_back[static_cast<std::size_t>(std::countr_zero(bits))];
    if (channel.tracked && channel.reader->readable())
      return true;
  }
  return false;
}

ReceiveResult PublisherEndpoint::receive(MessageSink& sink, Nanoseconds timeout) noexcept
{
  if (poll_back_rings(sink) > 0)
    return ReceiveResult::received;
  // A truncated segment reads as zeros (MappingGuard): nothing arrives, so this is the place.
  if (gave_up(&m_segment, m_settings.name, false, m_failure))
    return ReceiveResult::failed;
  if (timeout <= Nanoseconds::zero())
    return ReceiveResult::timed_out;
  auto now = Clock::now();
  const auto deadline = now + std::min(timeout, longest_wait);
  for (;;) {
    bool housekeeping = false;
    if (now >= m_next_reap) {
      m_next_reap = now + reap_interval;
      reap_dead_subscribers();
      housekeeping = true;
    }
    if (gave_up(&m_segment, m_settings.name, housekeeping, m_failure))
      return ReceiveResult::failed;
    wait(
        m_segment.publisher_wake(), [this] { return back_readable(); }, deadline - now);
    if (poll_back_rings(sink) > 0)
      return ReceiveResult::received;
    now = Clock::now();
    if (now >= deadline)
      return ReceiveResult::timed_out;
  }
}

void PublisherEndpoint::drop_slot(std::size_t index) noexcept
{
  const std::uint64_t bit = slot_bit(index);
  SlotTable& table = m_segment.table();
  shared(table.ready).fetch_and(~bit, std::memory_order_acq_rel);
  shared(table.changes).fetch_add(1, std::memory_order_acq_rel);
  m_ring.drop_reader(index);
  shared(m_segment.slot(index).pid).store(0, std::memory_order_relaxed);
  shared(table.claimed).fetch_and(~bit, std::memory_order_acq_rel);
  ++m_dropped;
}

void PublisherEndpoint::reap_dead_subscribers() noexcept
{
  const std::uint64_t claimed = shared(m_segment.table().claimed).load(std::memory_order_acquire);
  for (std::uint64_t bits = claimed; bits != 0; bits &= bits - 1) {
    const auto index = static_cast<std::size_t>(std::countr_zero(bits));
    const pid_t pid = shared(m_segment.slot(index).pid).load(std::memory_order_relaxed);
    // pid 0: a subscriber between claiming the slot and writing its PID.
    if (pid > 0 && !process_alive(pid))
      drop_slot(index);
  }
}

EndpointFacts PublisherEndpoint::facts() const
{
  EndpointFacts facts;
  facts.transport = "shm";
  facts.local_addresses.push_back(object_path(m_settings.name));
  facts.max_message_size = m_ring.max_message_size();
  facts.size_hint = ring_size_hint;
  facts.max_received_message_size = max_message_size(m_segment.layout().back_capacity);
  facts.requested_buffer_bytes = m_settings.requested_bytes;
  facts.granted_send_buffer_bytes = m_ring.capacity();
  facts.granted_receive_buffer_bytes = m_segment.layout().back_capacity;
  facts.notes = m_settings.notes;
  if (!m_replaced_note.empty())
    facts.notes.push_back(m_replaced_note);
  facts.notes.push_back(history_note(m_ring.history()));
  facts.notes.push_back(strategy_note());
  add_ring_facts(facts, m_ring);
  facts.notes.push_back(std::to_string(slot_count) + " subscriber slots, each with a " +
                        std::to_string(m_segment.layout().back_capacity) +
                        " B back ring (keep-all) for hellos, echoes and final counters");
  if (m_dropped > 0)
    facts.notes.push_back("dropped " + std::to_string(m_dropped) +
                          " subscriber(s) whose process had died");
  if (m_failure.happened())
    facts.notes.push_back("gave up: " + m_failure.reason());
  return facts;
}

} // namespace netprof::shm
