#pragma once

// A process of several streams (--publishers, --topics) runs a session for each, on a thread
// of its own; its report is theirs, made one.

#include "core/roles/role_result.hpp"

#include <cstdint>
#include <vector>

namespace netprof {

// Which stream a session ran: a publisher's topic.
struct StreamName {
  std::uint32_t publisher = 0;
  std::uint32_t topic = 0;
};

// One result from each stream's session, in the order of `names` (the first is the report's
// own figures; at least one): that first report, with each stream's figures listed
// (per_publisher on a subscriber, per_topic on a publisher), every stream's problems and
// warnings named by their stream ("publisher 1: ...", "topic 2: ...", "publisher 1, topic 2:
// ..."), and the gravest exit status of any.
RoleResult merged_streams(std::vector<RoleResult> results, const std::vector<StreamName>& names);

} // namespace netprof
