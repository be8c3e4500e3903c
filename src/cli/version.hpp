#pragma once

#include <string>

namespace netprof::cli {

// The commit this binary was built from: 12 hex digits, "-dirty" when tracked files had
// changes, "unknown" when built outside a git work tree (cmake/git_commit.cmake).
std::string git_commit();

// "netprof 0.1.0 (Release, commit 0123456789ab)\n": the version and build type CMake defines
// for every target, and the commit.
std::string version_text();

} // namespace netprof::cli
