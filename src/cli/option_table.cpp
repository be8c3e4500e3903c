#include "option_table.hpp"

#include "option_groups.hpp"

namespace netprof::cli {

const std::vector<CoreOption>& core_option_table()
{
  static const std::vector<CoreOption> rows = [] {
    std::vector<CoreOption> all;
    add_general(all);
    add_test(all);
    add_quality_of_service(all);
    add_latency(all);
    add_waiting_and_pinning(all);
    add_output(all);
    add_security(all);
    return all;
  }();
  return rows;
}

std::vector<OptionGroup> core_option_groups()
{
  std::vector<OptionGroup> groups;
  for (const CoreOption& row : core_option_table()) {
    if (groups.empty() || groups.back().caption != row.heading) {
      groups.push_back({row.heading, {}});
    }
    groups.back().options.push_back(row.spec);
  }
  return groups;
}

RunConfig core_config(const OptionValues& values)
{
  RunConfig config;
  for (const CoreOption& row : core_option_table()) {
    if (row.assign != nullptr) {
      row.assign(config, values, row.spec);
    }
  }
  config.role = config.id < config.publishers ? Role::publisher : Role::subscriber;
  return config;
}

} // namespace netprof::cli
