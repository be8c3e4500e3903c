#pragma once

// Messages of another run: a run id other than this process's own, once it has one. They are
// never judged as this run's (a replayed acknowledgement is not a clash, another run's echo is
// not a latency sample), only counted, so the verdict can say a second run shares the medium
// (two runs given one DDS topic or iceoryx service hear each other) or that old messages were
// replayed into this one.

#include <netprof/wire.hpp>

#include <cstdint>

namespace netprof {

struct ForeignRuns {
  std::uint64_t messages = 0; // every message of another run
  // Of them, the measured path: data at a subscriber, echoes at a publisher. Only a run that is
  // live on the same medium sends these; a replayed control message is not among them.
  std::uint64_t measured = 0;
  std::uint64_t last_run_id = 0;
  // Subscriber only: a publisher other than ours took or challenged this very process (its id
  // and instance tag) after ours had taken it in. Only a second publisher on the medium does.
  std::uint64_t other_publishers = 0;

  void count(const wire::Header& header, bool measured_path) noexcept
  {
    ++messages;
    if (measured_path)
      ++measured;
    last_run_id = header.run_id;
  }
};

// Whether `header` belongs to a run other than `own_run` (0: this process has none yet, so
// nothing is foreign; a message without a run, a first hello or a challenge, never is).
inline bool of_another_run(const wire::Header& header, std::uint64_t own_run) noexcept
{
  return own_run != 0 && header.run_id != 0 && header.run_id != own_run;
}

} // namespace netprof
