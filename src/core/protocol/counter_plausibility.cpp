#include "core/protocol/counter_plausibility.hpp"

namespace netprof {

namespace {

// The subscriber's clock is another process's, perhaps another host's: its span may run a
// little longer than the publisher's phase (clock rates, the first message's flight).
constexpr double span_tolerance = 1.01;
constexpr auto span_slack = std::chrono::milliseconds(50);

const char* impossible_rate(const wire::SubscriberCounters& c) noexcept
{
  if (c.received < 2)
    return nullptr;
  const double span_seconds = static_cast<double>(c.first_to_last_ns) * 1e-9;
  if (static_cast<double>(c.received - 1) > span_seconds * max_plausible_messages_per_second)
    return "a message rate no transport reaches";
  if (static_cast<double>(c.payload_bytes) > span_seconds * max_plausible_bytes_per_second +
                                                 static_cast<double>(c.payload_bytes / c.received))
    return "a byte rate no transport reaches";
  return nullptr;
}

} // namespace

const char* implausibility(const wire::SubscriberCounters& c, const CounterLimits& limits) noexcept
{
  if (c.unique > limits.sent)
    return "more distinct messages than were sent";
  if (c.unique > c.received || c.duplicates > c.received)
    return "more distinct or duplicate messages than were received";
  if (c.payload_bytes != c.received * limits.payload_size)
    return "payload bytes that disagree with -s";
  if (c.datagrams < c.received || c.wire_bytes < c.payload_bytes)
    return "fewer datagrams or wire bytes than messages and payload";
  if (c.probes_echoed > limits.probes_sent + c.duplicates) // a duplicated probe is echoed twice
    return "more probes echoed than were sent";
  if (c.records_decoded > c.received * limits.records_per_message)
    return "more records than were sent";
  const auto longest_span = limits.measured_so_far * span_tolerance + span_slack;
  if (static_cast<double>(c.first_to_last_ns) >
      static_cast<double>(std::chrono::duration_cast<Nanoseconds>(longest_span).count()))
    return "a span longer than the measured phase";
  return impossible_rate(c);
}

} // namespace netprof
