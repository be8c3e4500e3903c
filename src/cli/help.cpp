#include "../options/option_description.hpp"
#include "command_summary.hpp"
#include "option_table.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace netprof {

namespace po = boost::program_options;

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

// The lines, indented, for --help.
std::string indented(const std::vector<std::string>& lines)
{
  std::string text;
  for (const std::string& line : lines) {
    text += "  " + line + "\n";
  }
  return text;
}

std::string exit_status_lines()
{
  std::string text;
  for (const cli::ExitStatus& row : cli::exit_statuses()) {
    const std::string status = std::to_string(row.status);
    text += "  " + status + std::string(5 - status.size(), ' ') + row.meaning + "\n";
  }
  return text;
}

// Every group printed with the widest group's option column, so the descriptions align.
unsigned shared_column(const std::vector<const std::vector<OptionGroup>*>& lists)
{
  unsigned column = 0;
  for (const std::vector<OptionGroup>* groups : lists) {
    for (const auto& group : *groups) {
      column = std::max(column, options::describe(group).get_option_column_width());
    }
  }
  return column;
}

void print_groups(std::ostream& out, const std::vector<OptionGroup>& groups, unsigned column)
{
  for (const auto& group : described(groups, column)) {
    out << '\n';
    group.print(out, column);
  }
}

std::string header()
{
  return std::string("netprof ") + NETPROF_VERSION + ": " + cli::tagline() + "\n";
}

std::string usage_lines()
{
  return "\nUsage:\n" + indented(cli::aligned(cli::usages(), "")) + "\nTwo terminals (" +
         cli::two_terminals_rule + "):\n" + indented(cli::aligned(cli::two_terminals(), "# ")) +
         "One command:\n  netprof " + cli::local_pair_example + "\n";
}

// The transports by name and summary, and how to see each one's options.
std::string transport_index(const std::vector<cli::TransportOptions>& transports)
{
  std::size_t widest = 0;
  for (const auto& transport : transports)
    widest = std::max(widest, transport.name.size());
  std::string text = std::string("\nTransports (") + cli::transports_rule + "):\n";
  const std::size_t indent = 2 + widest + 2;
  const std::string continuation = "\n" + std::string(indent, ' ');
  for (const auto& transport : transports) {
    std::string summary = wrapped_at_spaces(transport.summary, options::help_line_length - indent);
    for (std::size_t at = summary.find('\n'); at != std::string::npos;
         at = summary.find('\n', at + continuation.size()))
      summary.replace(at, 1, continuation);
    text += "  " + transport.name + std::string(widest - transport.name.size() + 2, ' ') + summary +
            "\n";
  }
  const std::string example = transports.empty() ? "udp" : transports.front().name;
  return text + "\n" +
         wrapped_at_spaces("A transport's options: netprof --help TRANSPORT (netprof --help " +
                               example + "); every option: netprof --help all.",
                           options::help_line_length) +
         "\n";
}

// The transports' option groups without their captions: each is printed under its registry
// name and summary instead, which is what the user needs to pick one.
std::vector<OptionGroup> uncaptioned(const std::vector<cli::TransportOptions>& transports)
{
  std::vector<OptionGroup> groups;
  for (const cli::TransportOptions& transport : transports) {
    groups.push_back(transport.options);
    groups.back().caption.clear();
  }
  return groups;
}

std::string exit_status_part()
{
  return "\nExit status:\n" + exit_status_lines();
}

// --help: what every run uses, and the list of transports.
std::string general_help(const std::vector<OptionGroup>& core,
                         const std::vector<cli::TransportOptions>& transports)
{
  const unsigned column = shared_column({&core});
  std::ostringstream out;
  out << header() << usage_lines();
  print_groups(out, core, column);
  out << transport_index(transports) << exit_status_part();
  return out.str();
}

// --help all: the general help with every transport's options.
std::string full_help(const std::vector<OptionGroup>& core,
                      const std::vector<cli::TransportOptions>& transports)
{
  const std::vector<OptionGroup> transport_groups = uncaptioned(transports);
  const unsigned column = shared_column({&core, &transport_groups});
  std::ostringstream out;
  out << header() << usage_lines();
  print_groups(out, core, column);
  out << "\nTransports (" << cli::transports_rule << "):\n";
  const auto described_transports = described(transport_groups, column);
  for (std::size_t i = 0; i < transports.size(); ++i) {
    out << '\n' << transports[i].name << "  " << transports[i].summary << '\n';
    described_transports[i].print(out, column);
  }
  out << exit_status_part();
  return out.str();
}

// --help TRANSPORT: that transport's options, and what else to read.
std::string transport_help(const cli::TransportOptions& transport)
{
  const std::vector<OptionGroup> groups = uncaptioned({transport});
  const unsigned column = shared_column({&groups});
  std::ostringstream out;
  out << header() << "\n"
      << wrapped_at_spaces("The " + transport.name + " transport: " + transport.summary,
                           options::help_line_length)
      << "\n";
  print_groups(out, groups, column);
  out << "\nWith --local-pair --threads: "
      << (transport.allows_threads ? "yes, as two threads of one process"
                                   : "no, only as two processes")
      << ".\n"
      << "Shared options: netprof --help; every option: netprof --help all.\n";
  return out.str();
}

} // namespace

std::string help_text(const TransportRegistry& registry, std::string_view topic)
{
  const std::vector<OptionGroup> core = cli::documented_core_options(registry);
  const std::vector<cli::TransportOptions> transports = cli::transport_options(registry);
  if (topic.empty())
    return without_trailing_blanks(general_help(core, transports));
  if (topic == "all")
    return without_trailing_blanks(full_help(core, transports));
  std::string names;
  for (const cli::TransportOptions& transport : transports) {
    if (transport.name == topic)
      return without_trailing_blanks(transport_help(transport));
    names += ", " + transport.name;
  }
  throw UsageError("--help " + std::string(topic) +
                   ": no such transport in this build (expected all" + names + ")");
}

} // namespace netprof
