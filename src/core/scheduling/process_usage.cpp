#include "core/scheduling/process_usage.hpp"

#include <sys/resource.h>

namespace netprof {

namespace {

std::uint64_t nanoseconds(const timeval& time) noexcept
{
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(time.tv_usec) * 1'000ULL;
}

} // namespace

wire::ProcessUsage measure_process_usage(PairLayout layout) noexcept
{
  rusage usage{};
  if (::getrusage(layout == PairLayout::threads ? RUSAGE_THREAD : RUSAGE_SELF, &usage) != 0)
    return {};
  wire::ProcessUsage out;
  out.user_cpu_ns = nanoseconds(usage.ru_utime);
  out.system_cpu_ns = nanoseconds(usage.ru_stime);
  out.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024; // Linux: in KiB
  return out;
}

} // namespace netprof
