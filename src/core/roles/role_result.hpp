#pragma once

#include <netprof/errors.hpp>
#include <netprof/report.hpp>

namespace netprof {

// What a publisher or subscriber run ends with: the report and the exit status it implies.
struct RoleResult {
  RunReport report;
  ExitStatus status = ExitStatus::passed;
};

// A subscriber's figures as the report shows them, from its counters and the publisher's
// sent count (unknown when no END arrived: then loss is not claimed).
SubscriberResult subscriber_result(std::uint32_t id, const wire::SubscriberCounters& counters,
                                   std::optional<std::uint64_t> sent);

} // namespace netprof
