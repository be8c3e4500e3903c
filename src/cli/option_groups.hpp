#pragma once

// The rows of the core's option table, a --help group (or a part of one) per call, each
// appended to `rows` in --help order: core_option_table() calls them in that order.

#include "option_table.hpp"

#include <vector>

namespace netprof::cli {

// option_groups_run.cpp: what the run is and how it loads the transport.
void add_general(std::vector<CoreOption>& rows);
void add_test(std::vector<CoreOption>& rows);

// option_groups_measuring.cpp: what is asked of the transport and how latency is measured.
void add_quality_of_service(std::vector<CoreOption>& rows);
void add_latency(std::vector<CoreOption>& rows);

// option_groups_process.cpp: how each process waits and runs, what it prints, its secret.
void add_waiting_and_pinning(std::vector<CoreOption>& rows);
void add_output(std::vector<CoreOption>& rows);
void add_security(std::vector<CoreOption>& rows);

} // namespace netprof::cli
