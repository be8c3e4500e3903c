#include <netprof/enum_names.hpp>
#include <netprof/report.hpp>
#include <netprof/send_accounting.hpp>

#include <iterator>

// The names the JSON report uses for how a run and a subscriber ended (docs/json-schema.md).

namespace netprof {

const char* to_string(SubscriberOutcome outcome) noexcept
{
  static constexpr const char* names[] = {"complete", "left_early", "vanished", "restarted"};
  return enum_name(outcome, names, "unknown");
}

const char* to_string(RunEnding ending) noexcept
{
  static constexpr const char* names[] = {"end",          "publisher_silent",
                                          "no_publisher", "publisher_restarted",
                                          "interrupted",  "transport_failed"};
  return enum_name(ending, names, "unknown");
}

} // namespace netprof

namespace netprof {

const char* to_string(SendCause cause) noexcept
{
  static constexpr const char* names[] = {"unspecified", "eagain",    "enobufs",
                                          "zmq_hwm",     "ring_full", "queue_full",
                                          "connecting",  "eintr",     "error"};
  static_assert(std::size(names) == SendAccounting::cause_count);
  return enum_name(cause, names, "unknown");
}

} // namespace netprof
