#include "core/scheduling/cpu_pinning.hpp"

#include <netprof/errors.hpp>

#include <cerrno>
#include <cstring>
#include <sched.h>
#include <string>

namespace netprof {

void pin_to_cpu(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<unsigned>(cpu), &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0)
    throw TransportError("cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno));
}

} // namespace netprof
