#include "core/scheduling/scheduling_priority.hpp"

#include <netprof/errors.hpp>

#include <cerrno>
#include <cstring>
#include <string>

#include <sched.h>
#include <sys/resource.h>

namespace netprof {

namespace {

std::string refusal(const std::string& what, int error, const char* needs)
{
  return "cannot " + what + ": " + std::strerror(error) +
         (error == EPERM || error == EACCES ? std::string(" (") + needs + ")" : std::string());
}

} // namespace

void apply_scheduling_priority(const RunConfig& config)
{
  if (config.nice && ::setpriority(PRIO_PROCESS, 0, *config.nice) != 0) {
    throw TransportError(refusal("run at --nice " + std::to_string(*config.nice), errno,
                                 "below 0 needs root, CAP_SYS_NICE or an RLIMIT_NICE that "
                                 "allows it"));
  }
  if (config.rt_priority) {
    sched_param param{};
    param.sched_priority = static_cast<int>(*config.rt_priority);
    if (::sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
      throw TransportError(refusal(
          "run under SCHED_FIFO at --rt-priority " + std::to_string(*config.rt_priority), errno,
          "it needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO of at least "
          "that priority"));
    }
  }
}

} // namespace netprof
