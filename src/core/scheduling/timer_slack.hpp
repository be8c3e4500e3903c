#pragma once

namespace netprof {

// Sets the calling thread's timer slack to its minimum (1 ns). The kernel may let a sleep with
// the default slack (50 us) run that much past its end, to batch wake-ups; a pacer or a
// periodic reporter woken 50 us late puts that lateness into what it measures. Timer slack
// belongs to a thread, so every thread of netprof that sleeps on a schedule calls this first.
// False when the kernel refused (never on Linux for one's own thread).
bool use_minimal_timer_slack() noexcept;

} // namespace netprof
