#include "command_summary.hpp"

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
  for (const TransportEntry& entry : registry.entries()) {
    result.push_back({entry.name, entry.summary, entry.make()->options()});
  }
  return result;
}

} // namespace netprof::cli
