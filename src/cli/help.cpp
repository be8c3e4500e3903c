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

// `text` with each line broken at spaces into lines of at most `width` characters (a word
// longer than that keeps a line of its own).
std::string wrapped_at_spaces(const std::string& text, std::size_t width)
{
  std::string result;
  std::istringstream paragraphs(text);
  std::string paragraph;
  while (std::getline(paragraphs, paragraph)) {
    if (!result.empty()) {
      result += '\n';
    }
    std::istringstream words(paragraph);
    std::string word;
    std::size_t line = 0;
    while (words >> word) {
      if (line > 0 && line + 1 + word.size() > width) {
        result += '\n';
        line = 0;
      } else if (line > 0) {
        result += ' ';
        ++line;
      }
      result += word;
      line += word.size();
    }
  }
  return result;
}

// Boost breaks a description line inside a word whenever the word began in the first half of
// the line ("/dev/shm/netprof-NAM", then "E"). So the descriptions are wrapped here, at
// spaces, to the width Boost gives them beside `column` (it keeps one character of the line
// free), and Boost never has to break a line itself.
std::vector<po::options_description> described(std::vector<OptionGroup> groups, unsigned column)
{
  const std::size_t width = options::help_line_length - 1 - column;
  std::vector<po::options_description> result;
  for (OptionGroup& group : groups) {
    for (OptionSpec& spec : group.options) {
      spec.help = wrapped_at_spaces(spec.help, width);
    }
    result.push_back(options::describe(group));
  }
  return result;
}

} // namespace

std::string help_text(const TransportRegistry& registry)
{
  std::vector<OptionGroup> core_options = cli::core_option_groups();
  std::vector<OptionGroup> transport_options;
  for (const auto& entry : registry.entries()) {
    // The transport's own caption is replaced by its registry name and summary, which is
    // what the user needs to pick one; its options are printed without a caption of their own.
    transport_options.push_back(entry.make()->options());
    transport_options.back().caption.clear();
  }

  // Each group is printed on its own (the transport list goes between them), so give them
  // all the widest group's option column to keep the descriptions aligned.
  unsigned column = 0;
  for (const std::vector<OptionGroup>* groups : {&core_options, &transport_options}) {
    for (const auto& group : *groups) {
      column = std::max(column, options::describe(group).get_option_column_width());
    }
  }
  const auto core_groups = described(core_options, column);
  const auto transport_groups = described(transport_options, column);

  std::ostringstream out;
  out << "netprof " << NETPROF_VERSION
      << ": latency and throughput of a pub/sub transport between processes\n"
         "\n"
         "Usage:\n"
         "  netprof -i 0 TRANSPORT-OPTIONS [OPTIONS]   the publisher\n"
         "  netprof -i N TRANSPORT-OPTIONS [OPTIONS]   subscriber N >= 1\n"
         "  netprof --local-pair [OPTIONS]             both, as two processes on loopback\n"
         "  netprof --local-pair --threads [OPTIONS]   both, as two threads of one process\n"
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
