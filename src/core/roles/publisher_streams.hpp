#pragma once

// A subscriber of several publishers (--publishers) runs a session for each one's stream; its
// report is theirs, made one.

#include "core/roles/role_result.hpp"

#include <vector>

namespace netprof {

// One result from each publisher's session, publisher 0's first (at least one): publisher 0's
// report with each stream's figures in per_publisher, the other streams' problems and warnings
// named by their publisher, and the gravest exit status of any.
RoleResult merged_publisher_streams(std::vector<RoleResult> streams);

} // namespace netprof
