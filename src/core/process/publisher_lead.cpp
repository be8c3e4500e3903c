#include "core/process/publisher_lead.hpp"

#include <netprof/report.hpp>

#include <chrono>
#include <ostream>
#include <sstream>

namespace netprof {

namespace {

std::string seconds_text(double seconds)
{
  std::ostringstream text;
  text << seconds;
  return text.str();
}

} // namespace

bool relays_reports(const RunConfig& config)
{
  return config.role == Role::publisher && config.publishers > 1 &&
         config.pair_layout == PairLayout::none && !config.local_pair;
}

RelayedVerdict gather_other_publishers(ReportListener& listener, const LeadAddress& lead,
                                       RoleResult& result, const StopFlag& stop, std::ostream& err)
{
  RunReport& report = result.report;
  const RunConfig& config = report.config;
  const Clock::time_point deadline = Clock::now() + from_seconds(config.wait_seconds);
  // Most come at once: a line only when the others' runs go on after ours.
  const std::size_t soon =
      listener.gather(std::min(deadline, Clock::now() + std::chrono::milliseconds(300)), stop)
          .size();
  if (soon + 1 < config.publishers && !config.quiet && !stop.requested())
    err << ("netprof: publisher 0 waits up to " + seconds_text(config.wait_seconds) +
            " s (--wait) for the other publishers' reports at " + lead.text + "\n");
  const std::vector<RelayedReport>& relayed = listener.gather(deadline, stop);
  const std::string missing =
      stop.requested() ? "no report reached publisher 0 before it was interrupted"
                       : "no report reached publisher 0 at " + lead.text + " within --wait " +
                             seconds_text(config.wait_seconds) +
                             " s of its run's end (still running, failed before it reported, or "
                             "given another --lead)";
  RelayedVerdict verdict =
      judge_relayed_reports(report_to_json(report), relayed, config.publishers, missing);
  for (const std::string& problem : verdict.problems)
    report.problems.push_back(problem);
  // Stopped while others' reports were still to come: the run's report is partial, as an
  // interrupted run's is.
  if (verdict.missing && stop.requested() && !report.interrupted) {
    report.interrupted = true;
    result.status = ExitStatus::interrupted;
  }
  if (!verdict.problems.empty() && !report.interrupted) {
    report.success = false;
    report.headline.clear();
    if (result.status == ExitStatus::passed)
      result.status = verdict.missing ? ExitStatus::runtime : ExitStatus::failed;
  }
  if (listener.refused() > 0)
    report.warnings.push_back(format_count(listener.refused()) + " connection(s) to " + lead.text +
                              " were refused as not a report of this run's "
                              "publishers (the last: " +
                              listener.last_refusal() + ")");
  return verdict;
}

void relay_to_lead(const LeadAddress& lead, RunReport& report, const StopFlag& stop)
{
  const RunConfig& config = report.config;
  const std::string why =
      send_report_to_lead(lead, config.id, report_to_json(report).dump(), config.shared_secret,
                          Clock::now() + from_seconds(config.wait_seconds), stop);
  if (!why.empty())
    report.warnings.push_back("this publisher's report did not reach publisher 0 at " + lead.text +
                              ", which prints every publisher's: " + why);
}

void write_relayed_section(std::ostream& out, const LeadAddress& lead,
                           const RelayedVerdict& verdict)
{
  out << "Publishers (each one's own report, gathered by publisher 0 at " << lead.text << "):\n";
  for (const std::string& line : verdict.lines)
    out << "  " << line << "\n";
}

} // namespace netprof
