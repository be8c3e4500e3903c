#pragma once

#include <netprof/config.hpp>
#include <netprof/registry.hpp>

#include <iosfwd>

namespace netprof {

// --local-pair --threads: runs the subscriber and the publisher as two threads of this process,
// each from the arguments a process of the pair would get (local_pair_role_arguments), parsed
// again as a role of PairLayout::threads, with an endpoint of its own. The publisher's report
// is printed on `out`; the subscriber is quiet, as in the process pair, and each role's error
// lines go to `err` once it has finished. Interrupts, deadlines and the exit status are those
// of the process pair (run_pair). A role still running past its deadline cannot be killed as
// a child would be: the process then ends at once (std::_Exit), with the pair's status.
int run_thread_pair(const RunConfig& config, const LocalPairArguments& forwarded,
                    const TransportPlan& plan, std::ostream& out, std::ostream& err);

} // namespace netprof
