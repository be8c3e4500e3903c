#include "core/roles/subscriber_role_result.hpp"

#include "core/protocol/run_description.hpp"
#include "core/roles/role_settings.hpp"

#include <string>
#include <utility>

namespace netprof {

RoleResult subscriber_role_result(SubscriberFacts facts, const SubscriberRun& run,
                                  const RunConfig& own_config, std::uint64_t rejected,
                                  std::vector<IntervalFigures> intervals)
{
  RoleResult result;
  std::vector<std::string> disagreements;
  const RunConfig shown =
      run.described ? as_described(own_config, run.description, disagreements) : own_config;
  if (run.described)
    facts.pacing = pacing(shown);
  Verdict verdict = subscriber_verdict(facts, verdict_criteria(own_config));
  verdict.warnings.insert(verdict.warnings.end(), disagreements.begin(), disagreements.end());
  apply_verdict(std::move(verdict), result);
  RunReport& report = result.report;
  report.config = shown;
  report.run_id = run.run_id;
  report.end_received = run.end_received;
  report.ended_by = facts.ended_by;
  report.rejected = rejected;
  report.foreign_run_messages = facts.foreign.messages;
  report.self = facts.self;
  report.intervals = std::move(intervals);
  report.abandoned_runs = std::move(facts.abandoned_runs);
  return result;
}

} // namespace netprof
