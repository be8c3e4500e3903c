#include "command_summary.hpp"

#include "option_table.hpp"

#include <algorithm>

namespace netprof::cli {

std::string tagline()
{
  return "latency and throughput of a pub/sub transport between processes";
}

const std::vector<CommandLine>& usages()
{
  static const std::vector<CommandLine> lines = {
      {"-i 0 TRANSPORT-OPTIONS [OPTIONS]", "the publisher"},
      {"-i N TRANSPORT-OPTIONS [OPTIONS]", "subscriber N >= 1"},
      {"--local-pair [OPTIONS]", "both, as two processes on loopback"},
      {"--local-pair --threads [OPTIONS]", "both, as two threads of one process"},
  };
  return lines;
}

const std::vector<CommandLine>& two_terminals()
{
  static const std::vector<CommandLine> lines = {
      {"-i 0 -u 127.0.0.1:40000", "publisher"},
      {"-i 1 -u 127.0.0.1:40001 -u 127.0.0.1:40000", "subscriber"},
  };
  return lines;
}

const std::vector<ExitStatus>& exit_statuses()
{
  static const std::vector<ExitStatus> rows = {
      {0, "test passed"},
      {1, "test ran but failed (no data, or --max-loss exceeded)"},
      {2, "bad command line"},
      {3, "runtime or transport error (bind failed, peer never came)"},
      {130, "interrupted (partial report printed)"},
  };
  return rows;
}

std::vector<std::string> aligned(const std::vector<CommandLine>& lines, const std::string& marker)
{
  std::size_t widest = 0;
  for (const CommandLine& line : lines) {
    widest = std::max(widest, line.arguments.size());
  }
  std::vector<std::string> result;
  for (const CommandLine& line : lines) {
    result.push_back("netprof " + line.arguments +
                     std::string(widest - line.arguments.size() + 3, ' ') + marker + line.meaning);
  }
  return result;
}

std::vector<TransportOptions> transport_options(const TransportRegistry& registry)
{
  std::vector<TransportOptions> result;
  for (const TransportDescriptor& transport : registry.entries()) {
    result.push_back(
        {transport.name, transport.summary, transport.options, transport.flags.threads});
  }
  return result;
}

std::vector<OptionGroup> documented_core_options(const TransportRegistry& registry)
{
  std::string able;
  for (const TransportOptions& transport : transport_options(registry)) {
    if (transport.allows_threads)
      able += (able.empty() ? "" : ", ") + transport.name;
  }
  std::vector<OptionGroup> groups = core_option_groups();
  for (OptionGroup& group : groups) {
    for (OptionSpec& spec : group.options) {
      if (spec.long_name == "threads")
        spec.help += able.empty() ? " No transport of this build can."
                                  : " Transports that can: " + able + ".";
    }
  }
  return groups;
}

} // namespace netprof::cli
