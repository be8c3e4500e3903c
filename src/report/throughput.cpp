#include <netprof/report.hpp>

namespace netprof {

Throughput compute_throughput(const wire::SubscriberCounters& counters) noexcept
{
  Throughput out;
  out.seconds = static_cast<double>(counters.first_to_last_ns) / 1e9;
  if (counters.received < 2 || counters.first_to_last_ns == 0) {
    return out;
  }
  // The clock starts at the first message's arrival, so the window holds N messages but only
  // N-1 intervals: the first message took no measured time. Counting it would overstate the
  // rate, badly so for short runs. Datagram and byte totals include that first message too,
  // so they are scaled by the same (N-1)/N, i.e. by their per-message average.
  double n = static_cast<double>(counters.received);
  double intervals = n - 1.0;
  double share = intervals / n;
  out.messages_per_second = intervals / out.seconds;
  out.datagrams_per_second = static_cast<double>(counters.datagrams) * share / out.seconds;
  out.payload_bytes_per_second = static_cast<double>(counters.payload_bytes) * share / out.seconds;
  out.wire_bytes_per_second = static_cast<double>(counters.wire_bytes) * share / out.seconds;
  return out;
}

double loss_percent(const SubscriberResult& result) noexcept
{
  double expected = static_cast<double>(result.counters.unique) + static_cast<double>(result.lost);
  if (expected == 0.0) {
    return 0.0;
  }
  return static_cast<double>(result.lost) / expected * 100.0;
}

DealtLoss dealt_loss(std::uint64_t sent, const std::vector<SubscriberResult>& subscribers) noexcept
{
  DealtLoss loss;
  loss.sent = sent;
  for (const SubscriberResult& sub : subscribers)
    loss.received += sub.counters_received ? sub.counters.unique : 0;
  loss.lost = sent > loss.received ? sent - loss.received : 0;
  return loss;
}

} // namespace netprof
