#pragma once

// The text report of a run that never began: a publisher no subscriber joined, a subscriber
// no publisher answered. Every figure would be zero, so it says what was waited for, where and
// how long, instead of 30-odd lines of zeroes (the JSON keeps them all).

#include <netprof/report.hpp>

#include <ostream>

namespace netprof {

// True when the run never began: nothing was measured, only waited for.
bool nothing_measured(const RunReport& report) noexcept;

// The settings that matter to a wait that failed: transport, role, addresses, --wait.
void write_failed_wait(std::ostream& out, const RunReport& report);

} // namespace netprof
