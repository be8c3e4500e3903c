#include "key_file.hpp"
#include "option_table.hpp"
#include "transport_choice.hpp"
#include "transport_list.hpp"
#include "version.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace netprof {

namespace {

// A local group is for one host's processes: more than this would measure the scheduler, and
// each subscriber is a process of its own.
constexpr std::uint32_t max_local_subscribers = 64;

// Options end at "--"; what follows is an argument, refused later.
std::vector<std::string>::const_iterator options_end(const std::vector<std::string>& arguments)
{
  return std::find(arguments.begin(), arguments.end(), "--");
}

// --help wins even over a command line that does not parse, so a user mid-way through a
// broken command can still ask for it. Its topic ("--help udp", "--help=all") is the word
// after it, when that is no option; none asks for the general help.
std::optional<std::string> help_topic(const std::vector<std::string>& arguments)
{
  const auto end = options_end(arguments);
  for (auto it = arguments.cbegin(); it != end; ++it) {
    if (it->starts_with("--help=")) {
      return it->substr(7);
    }
    if (*it == "-h" || *it == "--help") {
      const auto next = it + 1;
      return next != end && !next->starts_with("-") ? *next : std::string();
    }
  }
  return std::nullopt;
}

// "--list-transports --json": everywhere else --json takes a FILE, so here a --json without one
// is taken out before parsing, and asks for the list as JSON.
bool take_bare_json_of_listing(std::vector<std::string>& arguments)
{
  const auto end = options_end(arguments);
  if (std::find(arguments.cbegin(), end, "--list-transports") == end) {
    return false;
  }
  for (std::size_t i = 0; arguments.begin() + static_cast<long>(i) != end; ++i) {
    const bool bare = i + 1 == arguments.size() || arguments[i + 1].starts_with("-");
    if (arguments[i] == "--json" && bare) {
      arguments.erase(arguments.begin() + static_cast<long>(i));
      return true;
    }
  }
  return false;
}

void check_count_received(const OptionValues& values, const RunConfig& config)
{
  if (!values.given("count-received"))
    return;
  if (values.given("count"))
    throw UsageError("give either --count (messages sent) or --count-received (messages each "
                     "subscriber received), not both");
  if (!config.local_pair && config.role == Role::publisher && config.subscribers == 0)
    throw UsageError("--count-received waits for every subscriber's count: give "
                     "--subscribers 1 or more");
}

// What a local group (--local-pair, --threads) and publisher 0's gathering (--lead) allow.
void check_local_group(const RunConfig& config)
{
  if (config.threads && !config.local_pair) {
    throw UsageError("--threads runs the publisher and subscriber of --local-pair as threads of "
                     "one process: give it with --local-pair");
  }
  if (config.local_pair && config.id != 0) {
    throw UsageError("--local-pair runs both the publisher and the subscriber: drop -i " +
                     std::to_string(config.id));
  }
  // The local pair starts the subscribers it waits for: --subscribers N makes it a local group
  // of N subscriber processes (ids 1 to N) beside the publisher.
  if (config.local_pair && config.subscribers == 0) {
    throw UsageError("--local-pair starts the subscribers it waits for: give --subscribers 1 or "
                     "more");
  }
  if (config.local_pair && config.subscribers > max_local_subscribers) {
    throw UsageError("--local-pair starts at most " + std::to_string(max_local_subscribers) +
                     " subscribers on this host: drop --subscribers " +
                     std::to_string(config.subscribers));
  }
  if (config.local_pair && config.threads && config.topics != 1) {
    throw UsageError("--local-pair --threads runs one stream: drop --topics " +
                     std::to_string(config.topics) + ", or drop --threads");
  }
  if (config.local_pair && config.threads && config.publishers != 1) {
    throw UsageError("--local-pair --threads runs one publisher: drop --publishers " +
                     std::to_string(config.publishers) + ", or drop --threads to run " +
                     std::to_string(config.publishers) + " publisher processes");
  }
  if (config.local_pair && config.publishers + config.subscribers > max_local_subscribers) {
    throw UsageError("--local-pair starts at most " + std::to_string(max_local_subscribers) +
                     " processes on this host: --publishers " + std::to_string(config.publishers) +
                     " and --subscribers " + std::to_string(config.subscribers) + " make " +
                     std::to_string(config.publishers + config.subscribers));
  }
  if (!config.lead.empty() && config.local_pair) {
    throw UsageError("--lead is for publishers run by hand: a local group gathers its "
                     "publishers' reports itself; drop --lead");
  }
  if (!config.lead.empty() && config.publishers < 2) {
    throw UsageError("--lead gathers several publishers' reports at publisher 0: give "
                     "--publishers 2 or more, or drop --lead");
  }
  if (config.local_pair && config.threads && config.subscribers != 1) {
    throw UsageError("--local-pair --threads runs one subscriber: drop --subscribers " +
                     std::to_string(config.subscribers) + ", or drop --threads to run " +
                     std::to_string(config.subscribers) + " subscriber processes");
  }
}

void check_combinations(const OptionValues& values, const RunConfig& config)
{
  if (values.given("time") && values.given("count")) {
    throw UsageError("give either -t/--time or --count, not both");
  }
  check_count_received(values, config);
  if (values.given("warmup-time") && values.given("warmup-count")) {
    throw UsageError("give either --warmup-time or --warmup-count, not both");
  }
  check_local_group(config);
  // An interval longer than the measured phase would never close before the run ends.
  if (config.interval_seconds && !values.given("count") &&
      (config.role == Role::publisher || config.local_pair) &&
      *config.interval_seconds > config.test_seconds) {
    std::ostringstream message;
    message << "--interval " << *config.interval_seconds
            << " is longer than the measured phase (-t " << config.test_seconds
            << "): give an interval no longer than -t, or a longer -t";
    throw UsageError(message.str());
  }
  // A publisher drops nothing (it receives only echoes), so the option would do nothing there.
  for (const char* name : {"drop-rate", "drop-seed"}) {
    if (!config.local_pair && config.role == Role::publisher && values.given(name))
      throw UsageError(std::string("--") + name +
                       " is a subscriber's option (it drops what it receives): give it to "
                       "a subscriber (-i N), or use --local-pair");
  }
}

std::vector<const OptionGroup*> every_group(const std::vector<OptionGroup>& core,
                                            const TransportRegistry& registry)
{
  std::vector<const OptionGroup*> groups;
  for (const OptionGroup& group : core) {
    groups.push_back(&group);
  }
  for (const TransportDescriptor& transport : registry.entries()) {
    groups.push_back(&transport.options);
  }
  return groups;
}

// --help, --version and --list-transports: text to print instead of a run.
bool answer_action(const OptionValues& values, bool listing_as_json,
                   const TransportRegistry& registry, ParsedCommandLine& result)
{
  using Action = ParsedCommandLine::Action;
  if (values.given("help")) {
    result.action = Action::help;
    result.text = help_text(registry);
  } else if (values.given("version")) {
    result.action = Action::version;
    result.text = cli::version_text();
  } else if (values.given("list-transports")) {
    result.action = Action::list_transports;
    result.text = listing_as_json ? cli::transport_list_json(registry, values,
                                                             cli::core_config(values).subscribers)
                                  : cli::transport_list(registry);
  }
  return result.action != Action::run;
}

// The transport's plan for each stream this process takes part in: a publisher's addresses
// are its own streams' (one per topic); a subscriber plans every publisher's every topic.
void plan_streams(const OptionValues& values, const std::vector<OptionGroup>& core,
                  const TransportRegistry& registry, ParsedCommandLine& result)
{
  RunConfig& config = result.config; // plan_transport names the transport in it
  const bool publisher = config.role == Role::publisher && !config.local_pair;
  const std::uint32_t first = publisher ? config.id : 0;
  result.plan = cli::plan_transport(registry, values, core, config, stream_index(config, first, 0));
  if (!config.local_pair && (config.publishers > 1 || config.topics > 1)) {
    const std::uint32_t last = publisher ? config.id : config.publishers - 1;
    for (std::uint32_t from = first; from <= last; ++from) {
      for (std::uint32_t topic = 0; topic < config.topics; ++topic)
        result.streams.push_back({from, topic,
                                  cli::plan_transport(registry, values, core, config,
                                                      stream_index(config, from, topic))});
    }
    if (result.streams.size() == 1)
      result.streams.clear();
  }
  if (publisher && config.publishers > 1) {
    const TransportPlan first_stream =
        config.id == 0 ? result.plan : cli::plan_transport(registry, values, core, config, 0);
    result.first_stream = config.transport_name;
    for (const std::string& address : first_stream.addresses)
      result.first_stream += " " + address;
  }
}

} // namespace

ParsedCommandLine parse_command_line(int argc, const char* const argv[],
                                     const TransportRegistry& registry, PairLayout layout)
{
  ParsedCommandLine result;
  const std::vector<std::string> arguments(argv, argv + std::max(argc, 0));
  // Without argv[0]; built here because Boost's (argc, argv) form assumes argc >= 1.
  std::vector<std::string> options_given(arguments.begin() + (arguments.empty() ? 0 : 1),
                                         arguments.end());
  if (const std::optional<std::string> topic = help_topic(options_given)) {
    result.action = ParsedCommandLine::Action::help;
    result.text = help_text(registry, *topic);
    return result;
  }
  const bool listing_as_json = take_bare_json_of_listing(options_given);

  const std::vector<OptionGroup> core = cli::core_option_groups();
  const std::vector<const OptionGroup*> groups = every_group(core, registry);
  const OptionValues values = parse_options(options_given, groups);
  if (answer_action(values, listing_as_json, registry, result)) {
    return result;
  }

  result.config = cli::core_config(values);
  result.config.pair_layout = layout;
  // A local group's later publishers write their JSON beside the first's, which the pair
  // then gathers them into (FILE.1, FILE.2...). (Appended piece by piece: "." + a string trips
  // a false -Wrestrict of GCC 12 here.)
  RunConfig& own = result.config;
  if (layout != PairLayout::none && own.role == Role::publisher && own.id > 0 &&
      !own.json_path.empty() && !json_on_stdout(own))
    own.json_path.append(1, '.').append(std::to_string(own.id));
  check_combinations(values, result.config);
  if (!result.config.key_file.empty())
    result.config.shared_secret = cli::read_key_file(result.config.key_file);
  plan_streams(values, core, registry, result);
  if (result.config.local_pair) {
    result.local_pair_options = route_to_local_pair(values, groups);
  }
  result.config.command_line = arguments;
  for (const GivenOption& option : values.in_order())
    result.config.options_given.push_back(option.long_name);
  return result;
}

} // namespace netprof
