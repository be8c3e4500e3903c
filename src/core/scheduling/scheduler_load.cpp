#include "core/scheduling/scheduler_load.hpp"

#include <fstream>
#include <sched.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace netprof {

namespace {

// Field 2 of /proc/thread-self/schedstat: nanoseconds spent runnable on a run queue.
std::optional<std::uint64_t> read_run_queue_wait_ns()
{
  std::ifstream file("/proc/thread-self/schedstat");
  std::uint64_t running = 0, waiting = 0;
  if (!(file >> running >> waiting))
    return std::nullopt;
  return waiting;
}

// The 4th field of /proc/loadavg, "running/total": threads runnable on the host right now
// (the reader among them).
std::uint32_t read_runnable_threads()
{
  std::ifstream file("/proc/loadavg");
  double one = 0, five = 0, fifteen = 0;
  std::uint32_t running = 0;
  if (!(file >> one >> five >> fifteen >> running))
    return 0;
  return running;
}

std::uint32_t cores_given()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  return static_cast<std::uint32_t>(CPU_COUNT(&set));
}

} // namespace

SchedulerSample sample_scheduler(PairLayout layout) noexcept
{
  SchedulerSample sample;
  sample.taken = Clock::now();
  rusage usage{};
  if (::getrusage(layout == PairLayout::threads ? RUSAGE_THREAD : RUSAGE_SELF, &usage) == 0)
    sample.involuntary_switches = static_cast<std::uint64_t>(usage.ru_nivcsw);
  try {
    sample.run_queue_wait_ns = read_run_queue_wait_ns();
  } catch (...) {
    sample.run_queue_wait_ns.reset();
  }
  return sample;
}

std::optional<SchedulerLoad> scheduler_load(const SchedulerSample& before,
                                            const SchedulerSample& after)
{
  if (after.taken <= before.taken || after.involuntary_switches < before.involuntary_switches)
    return std::nullopt;
  SchedulerLoad load;
  load.seconds = to_seconds(after.taken - before.taken);
  load.involuntary_switches = after.involuntary_switches - before.involuntary_switches;
  if (before.run_queue_wait_ns && after.run_queue_wait_ns &&
      *after.run_queue_wait_ns >= *before.run_queue_wait_ns)
    load.run_queue_wait_seconds =
        static_cast<double>(*after.run_queue_wait_ns - *before.run_queue_wait_ns) / 1e9;
  load.runnable_threads = read_runnable_threads();
  load.cores_given = cores_given();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  load.online_cores = online > 0 ? static_cast<std::uint32_t>(online) : 0;
  return load;
}

} // namespace netprof
