#include "option_description.hpp"
#include "option_suggestion.hpp"

#include <netprof/errors.hpp>

#include <string>
#include <vector>

namespace netprof {

namespace po = boost::program_options;

namespace {

// Positional arguments are collected under this name only so they can be reported by value;
// nothing else uses them.
constexpr const char* positional_name = "unexpected-argument";

[[noreturn]] void usage_error(const std::string& message)
{
  throw UsageError(message);
}

const po::value_semantic* semantic(const OptionSpec& spec)
{
  if (std::holds_alternative<Switch>(spec.rule)) {
    return po::bool_switch();
  }
  if (spec.is_repeatable) {
    auto* values = po::value<std::vector<std::string>>()->composing()->value_name(spec.value_name);
    if (spec.implicit_text) {
      // Given alone, it adds no value (OptionValues::texts): "--tcp" means "pick them for me".
      values->implicit_value({}, *spec.implicit_text);
    }
    return values;
  }
  auto* value = po::value<std::string>()->value_name(spec.value_name);
  if (spec.default_text) {
    value->default_value(*spec.default_text);
  }
  if (spec.implicit_text) {
    value->implicit_value(*spec.implicit_text);
  }
  return value;
}

// Translates a Boost exception into the one-line message the user sees.
[[noreturn]] void rethrow_as_usage_error(const po::error& error,
                                         const std::vector<const OptionGroup*>& groups)
{
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&error)) {
    const std::string name = unknown->get_option_name();
    usage_error("unknown option '" + name + "'" + options::suggestion_for(name, groups));
  }
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&error)) {
    const std::string name = syntax->get_option_name();
    switch (syntax->kind()) {
    case po::invalid_command_line_syntax::missing_parameter:
    case po::invalid_command_line_syntax::empty_adjacent_parameter:
      usage_error("option '" + name + "' needs a value");
    case po::invalid_command_line_syntax::extra_parameter:
      usage_error("option '" + name + "' takes no value");
    default:
      break;
    }
  }
  if (const auto* repeated = dynamic_cast<const po::multiple_occurrences*>(&error)) {
    usage_error("option '" + repeated->get_option_name() + "' given more than once");
  }
  usage_error(error.what());
}

// Boost takes the next token as an option's value unless it names a known option, but it
// looks long names up with their dashes, so "--json --quiet" would write to a file called
// "--quiet". Short names ("-s -q") it already catches.
void reject_options_taken_as_values(const po::parsed_options& parsed,
                                    const po::options_description& description)
{
  for (const auto& option : parsed.options) {
    if (option.original_tokens.size() < 2 || option.value.empty() ||
        !option.value.front().starts_with("--")) {
      continue;
    }
    std::string name = option.value.front().substr(2);
    name = name.substr(0, name.find('='));
    if (!name.empty() && description.find_nothrow(name, false) != nullptr) {
      usage_error("option '--" + option.string_key + "' needs a value");
    }
  }
}

void reject_positional_arguments(const po::parsed_options& parsed,
                                 const std::vector<const OptionGroup*>& groups)
{
  for (const auto& option : parsed.options) {
    if (option.string_key != positional_name) {
      continue;
    }
    if (option.position_key < 0) {
      const std::string& name = option.original_tokens.front();
      usage_error("unknown option '" + name + "'" + options::suggestion_for(name, groups));
    }
    usage_error("unexpected argument '" + option.value.front() + "'");
  }
}

const OptionSpec* find_spec(const std::vector<const OptionGroup*>& groups,
                            const std::string& long_name)
{
  for (const OptionGroup* group : groups) {
    for (const OptionSpec& spec : group->options) {
      if (spec.long_name == long_name) {
        return &spec;
      }
    }
  }
  return nullptr;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& tokens)
{
  to.insert(to.end(), tokens.begin(), tokens.end());
}

// "--cpu 0,1": "--cpu 0" for the publisher, "--cpu 1" for the subscriber.
void split(const GivenOption& option, LocalPairArguments& arguments)
{
  const std::string flag = "--" + option.long_name;
  for (const std::string& value : option.values) {
    const std::size_t comma = value.find(',');
    arguments.publisher.insert(arguments.publisher.end(), {flag, value.substr(0, comma)});
    if (comma != std::string::npos) {
      arguments.subscriber.insert(arguments.subscriber.end(), {flag, value.substr(comma + 1)});
    }
  }
}

} // namespace

po::options_description options::describe(const OptionGroup& group)
{
  po::options_description description(group.caption, help_line_length);
  for (const OptionSpec& spec : group.options) {
    const std::string names =
        spec.long_name + (spec.short_name == '\0' ? "" : std::string(",") + spec.short_name);
    description.add_options()(names.c_str(), semantic(spec), spec.help.c_str());
  }
  return description;
}

OptionValues parse_options(const std::vector<std::string>& arguments,
                           const std::vector<const OptionGroup*>& groups)
{
  po::options_description description;
  for (const OptionGroup* group : groups) {
    description.add(options::describe(*group));
  }
  po::options_description everything;
  everything.add(description);
  everything.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add(positional_name, -1);

  OptionValues values;
  try {
    // Guessing is off: "--wait" must never silently become "--wait-strategy", and a typo
    // must be reported, not completed.
    const auto style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    const auto parsed = po::command_line_parser(arguments)
                            .options(everything)
                            .positional(positional)
                            .style(style)
                            .run();
    // First: an option that swallowed the next option as its value ("--send-hz --count 5")
    // leaves that option's value behind as a stray argument, and the missing value is the
    // mistake to name.
    reject_options_taken_as_values(parsed, description);
    reject_positional_arguments(parsed, groups);
    po::variables_map given; // stored only for Boost's check of options given twice
    po::store(parsed, given);
    for (const auto& option : parsed.options) {
      values.add({option.string_key, option.value, option.original_tokens});
    }
  } catch (const po::error& error) {
    rethrow_as_usage_error(error, groups);
  }
  return values;
}

LocalPairArguments route_to_local_pair(const OptionValues& values,
                                       const std::vector<const OptionGroup*>& groups)
{
  LocalPairArguments arguments;
  for (const GivenOption& option : values.in_order()) {
    const OptionSpec* spec = find_spec(groups, option.long_name);
    if (spec == nullptr) {
      continue;
    }
    switch (spec->pair) {
    case PairRoute::both:
      append(arguments.publisher, option.tokens);
      append(arguments.subscriber, option.tokens);
      break;
    case PairRoute::publisher_only:
      append(arguments.publisher, option.tokens);
      break;
    case PairRoute::subscriber_only:
      append(arguments.subscriber, option.tokens);
      break;
    case PairRoute::split:
      split(option, arguments);
      break;
    case PairRoute::neither:
      break;
    }
  }
  return arguments;
}

} // namespace netprof
