#pragma once

#include "core/roles/role_result.hpp"
#include "core/roles/subscriber_run.hpp"
#include "core/roles/verdict.hpp"

#include <netprof/config.hpp>
#include <netprof/report.hpp>

#include <cstdint>
#include <vector>

namespace netprof {

// What a subscriber's role returns once its loop ended: the verdict on `facts`, and its report
// with the settings as the publisher described the run (`own_config` when it never did, and the
// options of this process that disagree with the description among the warnings).
// `rejected`: the messages refused, for the report.
RoleResult subscriber_role_result(SubscriberFacts facts, const SubscriberRun& run,
                                  const RunConfig& own_config, std::uint64_t rejected,
                                  std::vector<IntervalFigures> intervals);

} // namespace netprof
