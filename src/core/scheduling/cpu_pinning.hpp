#pragma once

namespace netprof {

// Pins the calling process to one CPU. Throws TransportError when the kernel refuses.
void pin_to_cpu(int cpu);

} // namespace netprof
