#pragma once

// Several publishers run by hand (--publishers P): what each does with the reports once its run
// is over. Publisher 0 leads: it gathers the others' (report_relay.hpp) and judges the run by
// all of them; each other publisher sends it its own. A local group's pair gathers them itself
// (publisher_reports.hpp).

#include "core/process/publisher_reports.hpp"
#include "core/process/report_relay.hpp"
#include "core/process/stop_flag.hpp"
#include "core/roles/role_result.hpp"

#include <iosfwd>

namespace netprof {

// Whether this process takes part: a publisher of several, run by hand.
bool relays_reports(const RunConfig& config);

// Publisher 0, its run over: waits (up to --wait) for the others' reports. Adds to `result`
// what they say (a problem for each that failed or never reported, and the exit status), and
// returns the JSON file's "publishers" and the text report's section. Says on `err` when it
// has to wait.
RelayedVerdict gather_other_publishers(ReportListener& listener, const LeadAddress& lead,
                                       RoleResult& result, const StopFlag& stop, std::ostream& err);

// Publisher k > 0, its run over: sends its report to publisher 0, and warns in its own when
// that fails.
void relay_to_lead(const LeadAddress& lead, RunReport& report, const StopFlag& stop);

// The text report's "Publishers" section: one line per publisher.
void write_relayed_section(std::ostream& out, const LeadAddress& lead,
                           const RelayedVerdict& verdict);

} // namespace netprof
