#include "address_plan.hpp"

#include "pair_names.hpp"

#include <netprof/errors.hpp>

namespace netprof::transport_common {

LocalPairPlan same_name_pair(const std::string& flag, const std::string& given,
                             std::size_t subscribers)
{
  const std::vector<std::string> arguments = {flag, given.empty() ? unique_pair_name() : given};
  return {arguments, std::vector(subscribers, arguments), {}};
}

const std::string& required_name(const std::string& flag, const std::string& given)
{
  if (given.empty())
    throw UsageError(flag + " needs a NAME (only --local-pair picks one itself)");
  return given;
}

} // namespace netprof::transport_common
