#include "core/roles/subscriber_run.hpp"

#include "core/roles/role_result.hpp"

#include <algorithm>

namespace netprof {

namespace {

// After END, the publisher stops repeating it once it has our counters; this much quiet
// means it has them (or has given up), so the subscriber may leave.
constexpr auto quiet_after_end = std::chrono::seconds(1);
// A publisher silent this long (or a quarter of the silence allowed, if that is shorter) may
// have been restarted.
constexpr auto seek_after = std::chrono::milliseconds(500);

} // namespace

std::int64_t SubscriberRun::record_one_way(std::int64_t sent_ns, Clock::time_point arrival) noexcept
{
  // The stamp comes off the wire: a forged one must not overflow the subtraction. A stamp
  // from the future (another host's clock) records as 0, as Histogram::record does.
  std::int64_t elapsed = 0;
  if (__builtin_sub_overflow(to_wire_ns(arrival), sent_ns, &elapsed))
    elapsed = sent_ns < 0 ? Histogram::highest_trackable_ns : 0;
  one_way.record(elapsed);
  return elapsed;
}

void SubscriberRun::start(const wire::Header& acknowledgement,
                          std::span<const std::byte> payload) noexcept
{
  run_id = acknowledgement.run_id;
  end_token = wire::carried_secret(acknowledgement);
  described = wire::decode_run_description(payload, description);
}

DataCounted SubscriberRun::count_data(const wire::Header& header, const Delivery& delivery,
                                      Clock::time_point now) noexcept
{
  DataCounted counted;
  data_started = true;
  if (end_received && !final_acknowledged) {
    // The publisher sends nothing after its END, so an END that data follows was not its last
    // word: forged, or (rarely, on a network that reorders) overtaken by data sent before it.
    // It stops counting as the end; a copy of it arriving again restores it (FinalExchange).
    end_received = false;
    withdrawn_end = publisher_sent;
    publisher_sent = 0;
    ++counted.refused;
  }
  if ((header.flags & wire::flags::warmup) != 0) {
    ++tally.warmup_received; // its probes were echoed too, to warm the echo path
    return counted;
  }
  if ((header.flags & wire::flags::probe) != 0)
    ++tally.probes_echoed;
  counted.measured = true;
  if (sequences.received() == 0) {
    counted.first_measured = true;
    first_measured = now;
    first_sequence = header.sequence;
    highest_sequence = header.sequence;
  }
  highest_sequence = std::max(highest_sequence, header.sequence);
  last_measured = now;
  counted.one_way = record_one_way(header.sent_ns, now);
  sequences.observe(header.sequence);
  tally.datagrams += delivery.datagrams;
  tally.payload_bytes += header.payload_length;
  tally.wire_bytes += delivery.wire_bytes;
  if (header.record_count > 0 && !read_records(header, delivery.bytes.subspan(wire::header_size)))
    ++counted.refused;
  return counted;
}

bool SubscriberRun::read_records(const wire::Header& header,
                                 std::span<const std::byte> payload) noexcept
{
  if (!records) {
    // A payload too small for that many records cannot be ours: building a reader for a
    // forged count of millions would cost seconds and hundreds of MB in the receive path.
    if (RecordLayout::minimum_payload_size(header.record_count) > header.payload_length)
      return false;
    // Built once per run, at the first message that carries records; never again per message.
    try {
      records = std::make_unique<RecordReader>(header.record_count);
    } catch (...) {
      return false;
    }
  }
  const std::int64_t found = records->read(payload, header.record_count);
  if (found < 0)
    return false;
  tally.records_decoded += static_cast<std::uint64_t>(found);
  return true;
}

std::uint64_t SubscriberRun::missing() const noexcept
{
  if (dealt_in_turn() || sequences.received() == 0 || highest_sequence < first_sequence)
    return 0;
  const std::uint64_t span = highest_sequence - first_sequence + 1;
  return span > sequences.unique() ? span - sequences.unique() : 0;
}

wire::SubscriberCounters SubscriberRun::counters(std::uint64_t rejected) const noexcept
{
  wire::SubscriberCounters c = tally;
  c.received = sequences.received();
  c.unique = sequences.unique();
  c.duplicates = sequences.duplicates();
  c.out_of_order = sequences.out_of_order();
  c.gaps = dealt_in_turn() ? 0 : sequences.gaps(); // the others' messages are no gap
  c.first_to_last_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<Nanoseconds>(last_measured - first_measured).count());
  c.rejected = rejected;
  c.probes_echoed = tally.probes_echoed - std::min(echoes_unsent, tally.probes_echoed);
  return c;
}

SubscriberResult SubscriberRun::figures(std::uint32_t id, std::uint64_t rejected,
                                        std::optional<std::uint64_t> sent) const
{
  // Its first measured message was not the publisher's first, and no warm-up came before it:
  // it joined after the measured phase began (or the first messages were lost), and is charged
  // only from its first message on (the publisher, which saw its hello, knows better).
  const bool joined_late = !dealt_in_turn() && sequences.received() > 0 && first_sequence > 0 &&
                           tally.warmup_received == 0;
  const std::uint64_t before = joined_late && sent ? std::min(first_sequence, *sent) : 0;
  // Dealt in turn, it got a share of what was sent, which only the publisher knows.
  if (dealt_in_turn())
    sent.reset();
  SubscriberResult self =
      subscriber_result(id, counters(rejected), sent ? std::optional(*sent - before) : sent);
  self.probes_sent = tally.probes_echoed; // counted as they arrive, echoed or not
  self.echoes = self.counters.probes_echoed;
  self.one_way = one_way.summarize();
  self.injected_drops = injected_drops;
  self.joined_late = joined_late;
  self.joined_at_sequence = joined_late ? first_sequence : 0;
  if (joined_after)
    self.join_seconds = to_seconds(*joined_after);
  return self;
}

Nanoseconds SubscriberDeadlines::silence_allowed(const SubscriberRun& run) const noexcept
{
  return run.data_started && !run.end_received ? m_idle_timeout : m_wait;
}

bool SubscriberDeadlines::seeking(const SubscriberRun& run, Clock::time_point now) const noexcept
{
  return m_heard && !run.end_received &&
         now - m_last_heard >= std::min<Nanoseconds>(seek_after, silence_allowed(run) / 4);
}

std::optional<RunEnding> SubscriberDeadlines::ending(const SubscriberRun& run,
                                                     Clock::time_point now) const noexcept
{
  if (run.final_acknowledged || (run.end_received && now - run.last_end >= quiet_after_end))
    return RunEnding::end;
  if (!m_heard)
    return now - m_start >= m_wait ? std::optional(RunEnding::no_publisher) : std::nullopt;
  return now - m_last_heard >= silence_allowed(run) ? std::optional(RunEnding::publisher_silent)
                                                    : std::nullopt;
}

} // namespace netprof
