#pragma once

#include <cstdint>

namespace netprof {

// How far a subscriber's run got: kept by the subscriber as the run goes (SubscriberRun), and
// judged whole by the verdict (SubscriberFacts).
struct RunProgress {
  std::uint64_t run_id = 0;
  bool data_started = false;        // any data (warm-up included) of this run arrived
  bool end_received = false;        // an END stands
  bool final_acknowledged = false;  // the publisher acknowledged the counters sent for its END
  std::uint64_t publisher_sent = 0; // the END's count, while end_received
  std::uint64_t first_sequence = 0; // of the first measured message received
  // ENDs refused because another END's count already stood: one of them was forged.
  std::uint64_t conflicting_ends = 0;
  std::uint64_t conflicting_count = 0;
};

} // namespace netprof
