#include <netprof/report.hpp>

// The names the JSON report uses for how a run and a subscriber ended (docs/json-schema.md).

namespace netprof {

const char* to_string(SubscriberOutcome outcome) noexcept
{
  switch (outcome) {
  case SubscriberOutcome::complete:
    return "complete";
  case SubscriberOutcome::left_early:
    return "left_early";
  case SubscriberOutcome::vanished:
    return "vanished";
  case SubscriberOutcome::restarted:
    break;
  }
  return "restarted";
}

const char* to_string(RunEnding ending) noexcept
{
  switch (ending) {
  case RunEnding::end:
    return "end";
  case RunEnding::publisher_silent:
    return "publisher_silent";
  case RunEnding::no_publisher:
    return "no_publisher";
  case RunEnding::publisher_restarted:
    return "publisher_restarted";
  case RunEnding::interrupted:
    return "interrupted";
  case RunEnding::transport_failed:
    break;
  }
  return "transport_failed";
}

} // namespace netprof
