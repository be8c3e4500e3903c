#include "version.hpp"

#include <netprof_git_commit.hpp>

namespace netprof {

std::string cli::git_commit()
{
  return NETPROF_GIT_COMMIT;
}

std::string cli::version_text()
{
  return std::string("netprof ") + NETPROF_VERSION + " (" + NETPROF_BUILD_TYPE + ", commit " +
         git_commit() + ")\n";
}

} // namespace netprof
