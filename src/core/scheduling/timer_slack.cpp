#include "core/scheduling/timer_slack.hpp"

#include <sys/prctl.h>

namespace netprof {

bool use_minimal_timer_slack() noexcept
{
  // 0 would mean "back to the default"; 1 ns is the least the kernel takes.
  return ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
}

} // namespace netprof
