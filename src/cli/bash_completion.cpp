#include "bash_completion.hpp"

#include "command_summary.hpp"
#include "option_table.hpp"

#include <map>
#include <vector>

namespace netprof::cli {

namespace {

// "-s|--size": the option's names as a `case` pattern.
std::string case_pattern(const OptionSpec& spec)
{
  std::string pattern;
  if (spec.short_name != '\0') {
    pattern.append({'-', spec.short_name, '|'});
  }
  return pattern.append("--").append(spec.long_name);
}

std::string joined(const std::vector<std::string>& words, const std::string& separator)
{
  std::string text;
  for (const std::string& word : words) {
    text += (text.empty() ? "" : separator) + word;
  }
  return text;
}

// How the word after an option is completed, by the option's value.
struct ValueCompletions {
  std::map<std::string, std::vector<std::string>> choices; // "stream ping-pong" -> its options
  std::vector<std::string> files;
  std::vector<std::string> users;
  std::vector<std::string> typed; // a number, an address: nothing to offer
  std::vector<std::string> every_option;

  void add(const OptionSpec& spec)
  {
    every_option.push_back("--" + spec.long_name);
    if (spec.short_name != '\0') {
      every_option.push_back({'-', spec.short_name});
    }
    // A switch takes no value; a flag with an implicit value (--shm) may be followed by
    // another option.
    if (std::holds_alternative<Switch>(spec.rule) || spec.implicit_text) {
      return;
    }
    const std::string pattern = case_pattern(spec);
    if (const auto* choice = std::get_if<Choice>(&spec.rule)) {
      choices[joined(choice->names, " ")].push_back(pattern);
    } else if (std::holds_alternative<FilePath>(spec.rule) || spec.value_name == "FILE") {
      files.push_back(pattern);
    } else if (spec.value_name == "USER") {
      users.push_back(pattern);
    } else {
      typed.push_back(pattern);
    }
  }

  std::string case_branches() const
  {
    std::string text;
    for (const auto& [values, patterns] : choices) {
      text += "    " + joined(patterns, "|") + ")\n      COMPREPLY=($(compgen -W '" + values +
              "' -- \"$cur\"))\n      return ;;\n";
    }
    if (!files.empty()) {
      text += "    " + joined(files, "|") +
              ")\n      compopt -o filenames 2>/dev/null\n"
              "      COMPREPLY=($(compgen -f -- \"$cur\"))\n      return ;;\n";
    }
    if (!users.empty()) {
      text += "    " + joined(users, "|") +
              ")\n      COMPREPLY=($(compgen -u -- \"$cur\"))\n      return ;;\n";
    }
    if (!typed.empty()) {
      text += "    " + joined(typed, "|") + ")\n      return ;;\n";
    }
    return text;
  }
};

} // namespace

std::string bash_completion(const TransportRegistry& registry)
{
  ValueCompletions completions;
  for (const CoreOption& row : core_option_table()) {
    completions.add(row.spec);
  }
  std::string help_topics = "all";
  for (const TransportOptions& transport : transport_options(registry)) {
    help_topics += " " + transport.name;
    for (const OptionSpec& spec : transport.options.options) {
      completions.add(spec);
    }
  }
  return "# bash completion for netprof(1), written by netprof_docgen from the option table: do "
         "not edit.\n"
         "_netprof()\n"
         "{\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
         "  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
         "  # bash splits \"--mode=st\" at the '=' into \"--mode\" \"=\" \"st\"\n"
         "  if [[ $cur == = ]]; then\n"
         "    cur=\n"
         "  elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
         "    prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
         "  fi\n"
         "  case $prev in\n"
         "    -h|--help)\n      COMPREPLY=($(compgen -W '" +
         help_topics + "' -- \"$cur\"))\n      return ;;\n" + completions.case_branches() +
         "  esac\n"
         "  COMPREPLY=($(compgen -W '" +
         joined(completions.every_option, " ") +
         "' -- \"$cur\"))\n"
         "}\n"
         "complete -F _netprof netprof\n";
}

} // namespace netprof::cli
