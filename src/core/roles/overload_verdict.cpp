// The verdicts on the host (verdict.hpp): an overloaded one, and one whose idle vCPUs halt at
// once. Kept apart from the run's own verdict, since they judge the machine the run had, not
// what the run came to.

#include "core/roles/verdict.hpp"

#include <string>
#include <vector>

namespace netprof {

namespace {

// A thread that has a core to itself is hardly ever taken off it; a spinning one that shares
// its core is taken off at every tick (250-1000 a second). Either of these, over the run,
// means a message could wait a scheduler's time slice (milliseconds) for netprof to run.
// Preemptions judge only spinning threads: a blocking one is also taken off its core whenever
// the peer it just woke gets that core (a local pair on 2 CPUs: about 50 a second on a quiet
// host), which delays no message; for it, the time spent waiting for a CPU tells.
constexpr double involuntary_switches_per_second = 50.0;
constexpr double run_queue_wait_share = 0.05;
constexpr double steal_percent_limit = 5.0;

bool spins(WaitStrategy strategy) noexcept
{
  return !sleeps(strategy);
}

} // namespace

std::optional<std::string> overload_warning(const SchedulerLoad& load,
                                            std::optional<double> steal_percent,
                                            WaitStrategy strategy)
{
  if (load.seconds <= 0.0)
    return std::nullopt;
  const double switch_rate = static_cast<double>(load.involuntary_switches) / load.seconds;
  const double waiting = load.run_queue_wait_seconds / load.seconds;
  const bool preempted = spins(strategy) && switch_rate >= involuntary_switches_per_second;
  const bool queued = waiting >= run_queue_wait_share;
  const bool stolen = steal_percent && *steal_percent >= steal_percent_limit;
  const bool crowded =
      spins(strategy) && load.online_cores > 0 && load.runnable_threads > load.online_cores;
  if (!preempted && !queued && !stolen && !crowded)
    return std::nullopt;
  std::string text = "the host was overloaded, so these figures are partly the scheduler's: " +
                     format_count(load.involuntary_switches) + " involuntary context switches (" +
                     format_number(switch_rate) + "/s), " + format_percent(100.0 * waiting) +
                     " of the time waiting for a CPU, " + std::to_string(load.runnable_threads) +
                     " runnable threads on " + std::to_string(load.online_cores) +
                     " CPUs (netprof may use " + std::to_string(load.cores_given) + ")";
  if (steal_percent)
    text += ", " + format_percent(*steal_percent) + " stolen by the hypervisor";
  if (spins(strategy))
    text += std::string("; --wait-strategy ") + to_string(strategy) +
            " needs a core of its own for each spinning thread";
  return text;
}

std::optional<std::string> idle_halt_warning(const HostFacts& host, WaitStrategy strategy)
{
  if (!sleeps(strategy) || host.guest_halt_poll_ns != std::uint64_t{0})
    return std::nullopt;
  return std::string("idle vCPUs halt at once on this host (cpuidle haltpoll, "
                     "guest_halt_poll_ns 0), so with --wait-strategy ") +
         to_string(strategy) +
         " a receiver's wake-up may be a halted vCPU's, through the hypervisor: on the VMs we "
         "measured that was most of a blocking round trip (docs/methodology.md, \"Idle CPUs\"); "
         "as root, `echo 200000 > /sys/module/haltpoll/parameters/guest_halt_poll_ns` lets an "
         "idle vCPU poll 200 us before it halts";
}

} // namespace netprof
