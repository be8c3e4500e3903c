#pragma once

#include <stdexcept>

namespace netprof {

// Documented exit statuses (see --help and README).
enum class ExitStatus : int {
  passed = 0,
  failed = 1,       // the test ran but failed: no data, or a loss criterion missed
  usage = 2,        // bad command line
  runtime = 3,      // runtime or transport error: bind failed, peer never came
  interrupted = 130 // SIGINT/SIGTERM: a partial report was printed
};

// Thrown while setting up when the user's input is wrong; main maps it to ExitStatus::usage.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Thrown while setting up when the system refuses (bind failed, no such interface);
// main maps it to ExitStatus::runtime.
class TransportError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace netprof
