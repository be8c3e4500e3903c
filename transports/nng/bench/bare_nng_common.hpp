#pragma once

// What the two bare NNG baselines (bare_nng_pingpong, bare_nng_stream) share: NNG's errors as
// one exception, pinning, and a fresh loopback address per run.

#include "bare_common.hpp"

#include <nng/nng.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace bare::nng {

struct Failure {
  const char* what;
  int error; // an NNG error, errno for the system's, 0 for a mismatch of our own
};

inline void check(int error, const char* what)
{
  if (error != 0)
    throw Failure{what, error};
}

inline void pin(std::optional<int> cpu)
{
  if (!bare::pin_to_cpu(cpu))
    throw Failure{"sched_setaffinity", errno};
}

// ipc:// under $TMPDIR named after this process, or tcp:// on a free loopback port.
inline std::string pick_url(bool ipc, const char* stem)
{
  if (ipc) {
    const char* tmp = std::getenv("TMPDIR");
    return "ipc://" + std::string(tmp != nullptr ? tmp : "/tmp") + "/" + stem + "-" +
           std::to_string(getpid()) + ".ipc";
  }
  const std::optional<std::uint16_t> port = bare::free_loopback_tcp_port();
  if (!port)
    throw Failure{"no free loopback port", errno};
  return "tcp://127.0.0.1:" + std::to_string(*port);
}

inline int report_failure(const char* program, const char* role, const Failure& failure,
                          const char* without_error)
{
  std::fprintf(stderr, "%s (%s): %s: %s\n", program, role, failure.what,
               failure.error != 0 ? nng_strerror(failure.error) : without_error);
  return 1;
}

} // namespace bare::nng
