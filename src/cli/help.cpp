#include "../options/option_description.hpp"
#include "command_summary.hpp"
#include "option_table.hpp"

#include <netprof/cli.hpp>

#include <algorithm>
#include <sstream>
#include <string>
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

} // namespace

std::string help_text(const TransportRegistry& registry)
{
  std::vector<OptionGroup> core_options = cli::core_option_groups();
  const std::vector<cli::TransportOptions> transports = cli::transport_options(registry);
  std::vector<OptionGroup> transport_options;
  for (const cli::TransportOptions& transport : transports) {
    // The transport's own caption is replaced by its registry name and summary, which is
    // what the user needs to pick one; its options are printed without a caption of their own.
    transport_options.push_back(transport.options);
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
  out << "netprof " << NETPROF_VERSION << ": " << cli::tagline() << "\n\nUsage:\n"
      << indented(cli::aligned(cli::usages(), "")) << "\nTwo terminals (" << cli::two_terminals_rule
      << "):\n"
      << indented(cli::aligned(cli::two_terminals(), "# ")) << "One command:\n  netprof "
      << cli::local_pair_example << "\n";

  for (const auto& group : core_groups) {
    out << '\n';
    group.print(out, column);
  }

  out << "\nTransports (" << cli::transports_rule << "):\n";
  for (std::size_t i = 0; i < transport_groups.size(); ++i) {
    out << '\n' << transports[i].name << "  " << transports[i].summary << '\n';
    transport_groups[i].print(out, column);
  }

  out << "\nExit status:\n" << exit_status_lines();
  return without_trailing_blanks(out.str());
}

} // namespace netprof
