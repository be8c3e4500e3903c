#pragma once

// Several publishers' reports made into one: publisher 0's, with a "publishers" array holding
// each publisher's id, result, figures and subscribers. A local group (--local-pair
// --publishers P) gathers the files its publishers wrote; run by hand, publisher 0 gathers the
// reports the others sent it (report_relay.hpp).

#include "core/process/report_relay.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace netprof {

// `path` holds publisher 0's JSON report and `path`.k publisher k's (1 to publishers - 1):
// adds to the first a "publishers" array, each entry a publisher's id, result, figures and
// subscribers (null figures for one that wrote none), and removes the others. Throws
// TransportError when `path` cannot be read or written.
void gather_publisher_reports(const std::string& path, std::uint32_t publishers);

// What publisher 0 makes of the reports relayed to it.
struct RelayedVerdict {
  nlohmann::json entries = nlohmann::json::array(); // "publishers": its own entry first
  std::vector<std::string> lines;    // the text report's "Publishers" section, one per publisher
  std::vector<std::string> problems; // a publisher that failed, or whose report never came
  bool missing = false;              // a report never came (or came unreadable)
};

// `own`: publisher 0's JSON report; `relayed`: what came, in id order. `missing_reason` says
// why a publisher without a report has none ("no report reached publisher 0 within ...").
RelayedVerdict judge_relayed_reports(const nlohmann::json& own,
                                     const std::vector<RelayedReport>& relayed,
                                     std::uint32_t publishers, const std::string& missing_reason);

} // namespace netprof
