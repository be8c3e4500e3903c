#include "../options/option_description.hpp"
#include "option_table.hpp"
#include "version.hpp"

#include <netprof/cli.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace netprof {

namespace po = boost::program_options;

std::string cli::version_text()
{
  return std::string("netprof ") + NETPROF_VERSION + " (" + NETPROF_BUILD_TYPE + ")\n";
}

namespace {

// Boost leaves a blank at the end of every wrapped description line.
std::string without_trailing_blanks(const std::string& text)
{
  std::string result;
  result.reserve(text.size());
  for (const char c : text) {
    if (c == '\n') {
      result.erase(result.find_last_not_of(' ') + 1);
    }
    result += c;
  }
  return result;
}

} // namespace

std::string help_text(const TransportRegistry& registry)
{
  std::vector<po::options_description> core_groups;
  for (const OptionGroup& group : cli::core_option_groups()) {
    core_groups.push_back(options::describe(group));
  }
  std::vector<po::options_description> transport_groups;
  for (const auto& entry : registry.entries()) {
    // The transport's own caption is replaced by its registry name and summary, which is
    // what the user needs to pick one; its options are printed without a caption of their own.
    OptionGroup group = entry.make()->options();
    group.caption.clear();
    transport_groups.push_back(options::describe(group));
  }

  // Each group is printed on its own (the transport list goes between them), so give them
  // all the widest group's option column to keep the descriptions aligned.
  unsigned column = 0;
  for (const auto* groups : {&core_groups, &transport_groups}) {
    for (const auto& group : *groups) {
      column = std::max(column, group.get_option_column_width());
    }
  }

  std::ostringstream out;
  out << "netprof " << NETPROF_VERSION
      << ": latency and throughput of a pub/sub transport between processes\n"
         "\n"
         "Usage:\n"
         "  netprof -i 0 TRANSPORT-OPTIONS [OPTIONS]   the publisher\n"
         "  netprof -i N TRANSPORT-OPTIONS [OPTIONS]   subscriber N >= 1\n"
         "  netprof --local-pair [OPTIONS]             both, as two processes on loopback\n"
         "\n"
         "Two terminals (the first -u is this process's own address, the rest its peers):\n"
         "  netprof -i 0 -u 127.0.0.1:40000                      # publisher\n"
         "  netprof -i 1 -u 127.0.0.1:40001 -u 127.0.0.1:40000   # subscriber\n"
         "One command:\n"
         "  netprof --local-pair -t 3\n";

  for (const auto& group : core_groups) {
    out << '\n';
    group.print(out, column);
  }

  out << "\nTransports (give the options of exactly one; --local-pair defaults to udp):\n";
  for (std::size_t i = 0; i < transport_groups.size(); ++i) {
    const TransportEntry& entry = registry.entries()[i];
    out << '\n' << entry.name << "  " << entry.summary << '\n';
    transport_groups[i].print(out, column);
  }

  out << "\nExit status:\n"
         "  0    test passed\n"
         "  1    test ran but failed (no data, or --max-loss exceeded)\n"
         "  2    bad command line\n"
         "  3    runtime or transport error (bind failed, peer never came)\n"
         "  130  interrupted (partial report printed)\n";
  return without_trailing_blanks(out.str());
}

} // namespace netprof
