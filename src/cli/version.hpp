#pragma once

#include <string>

namespace netprof::cli {

// "netprof 0.1.0 (Release)\n": the version and build type CMake defines for every target.
std::string version_text();

} // namespace netprof::cli
