#pragma once

#include <iosfwd>

namespace netprof {

// The whole program: parse, set up, run the role, report, and map the outcome to one of the
// documented exit statuses. Exceptions stop here.
int run(int argc, const char* const argv[], std::ostream& out, std::ostream& err);

} // namespace netprof
