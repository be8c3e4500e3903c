// What others did to a run, in its verdict (verdict.hpp): messages of another run on the same
// medium, and control messages refused for their MAC.

#include "core/roles/verdict.hpp"

#include <string>

namespace netprof {

// Why nobody was heard, when messages came whose MAC did not match: a key on one side only,
// or two different keys.
std::string key_hint(std::uint64_t unauthenticated)
{
  if (unauthenticated == 0)
    return {};
  return "; " + format_count(unauthenticated) +
         " control messages were refused for their MAC: does every process have the same "
         "--key-file, or none?";
}

// Another run's messages are never taken as this run's; the verdict says where they came from.
// A stream of its measured traffic (data, echoes) comes only from a run live on the same medium,
// which the figures cannot be told apart from: a problem. A few strays, forged or left over, and
// control messages alone (replays) are a warning.
void judge_foreign_runs(const ForeignRuns& foreign, Verdict& verdict)
{
  // A live run sends data for its whole measured phase; a stranger's garbage is a few datagrams.
  constexpr std::uint64_t live_run_messages = 16;
  constexpr const char* second_run =
      "a second run shares this medium (the same --dds topic, iceoryx service, or address), so "
      "whose run each process measured cannot be told; give each run a name of its own";
  if (foreign.other_publishers > 0)
    verdict.problems.push_back("a publisher other than this run's answered this subscriber " +
                               format_count(foreign.other_publishers) + " time(s): " + second_run);
  if (foreign.messages == 0)
    return;
  const std::string counted = format_count(foreign.messages) + " messages of another run (run " +
                              format_run_id(foreign.last_run_id) + ") reached this process";
  if (foreign.measured >= live_run_messages)
    verdict.problems.push_back(counted + ", " + format_count(foreign.measured) +
                               " of them its data or echoes: " + second_run);
  else
    verdict.warnings.push_back(counted + " and were ignored: replayed, forged, or left from an "
                                         "earlier run (none was taken as this run's)");
}

} // namespace netprof
