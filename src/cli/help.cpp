#include "core_options.hpp"
#include "version.hpp"

#include <netprof/cli.hpp>

#include <algorithm>
#include <memory>
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
  const auto core_groups = cli::core_option_groups();
  // The option groups live in the transports, so keep them alive while printing.
  std::vector<std::unique_ptr<Transport>> transports;
  for (const auto& entry : registry.entries()) {
    transports.push_back(entry.make());
  }

  // Each group is printed on its own (the transport list goes between them), so give them
  // all the widest group's option column to keep the descriptions aligned.
  unsigned column = 0;
  for (const auto& group : core_groups) {
    column = std::max(column, group.get_option_column_width());
  }
  for (const auto& transport : transports) {
    column = std::max(column, transport->options().get_option_column_width());
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
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const TransportEntry& entry = registry.entries()[i];
    // The transport's own caption is replaced by its registry name and summary, which is
    // what the user needs to pick one; its options are printed without a caption of their own.
    po::options_description group("", cli::help_line_length);
    for (const auto& option : transports[i]->options().options()) {
      group.add(option);
    }
    out << '\n' << entry.name << "  " << entry.summary << '\n';
    group.print(out, column);
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
