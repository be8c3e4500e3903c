#include "core/roles/role_result.hpp"

namespace netprof {

SubscriberResult subscriber_result(std::uint32_t id, const wire::SubscriberCounters& counters,
                                   std::optional<std::uint64_t> sent)
{
  SubscriberResult result;
  result.id = id;
  result.counters_received = true;
  result.counters = counters;
  result.throughput = compute_throughput(counters);
  result.lost = sent && *sent > counters.unique ? *sent - counters.unique : 0;
  return result;
}

} // namespace netprof
