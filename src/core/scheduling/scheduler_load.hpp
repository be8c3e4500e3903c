#pragma once

// Samples of what the scheduler did to the calling role, taken before and after its run; the
// difference (scheduler_load) is what the verdict judges for an overloaded host.

#include <netprof/clock.hpp>
#include <netprof/config.hpp>
#include <netprof/report.hpp>

#include <cstdint>
#include <optional>

namespace netprof {

struct SchedulerSample {
  Clock::time_point taken{};
  std::uint64_t involuntary_switches = 0;
  std::optional<std::uint64_t> run_queue_wait_ns; // /proc/thread-self/schedstat, if readable
};

// This role's own: its thread's alone under --local-pair --threads (`layout`), else the whole
// process's context switches and the calling (measuring) thread's run-queue wait.
SchedulerSample sample_scheduler(PairLayout layout) noexcept;

// From two samples, with the host's runnable threads and the CPUs this role may use read now.
std::optional<SchedulerLoad> scheduler_load(const SchedulerSample& before,
                                            const SchedulerSample& after);

} // namespace netprof
