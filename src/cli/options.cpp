#include "core_options.hpp"
#include "number_parsing.hpp"
#include "version.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace netprof {

namespace po = boost::program_options;

namespace {

using cli::NumberStatus;

// Positional arguments are collected under this name only so they can be reported by value;
// nothing else uses them.
constexpr const char* positional_name = "unexpected-argument";

constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

// Longest meaningful duration for a seconds option: a day is plenty for a profiling run and
// keeps every conversion to integer nanoseconds far from overflow.
constexpr double max_seconds = 86'400.0;
constexpr double max_hz = 1e9;

[[noreturn]] void usage_error(const std::string& message)
{
  throw UsageError(message);
}

std::string invalid_value(std::string_view option, std::string_view value)
{
  return "invalid value '" + std::string(value) + "' for --" + std::string(option);
}

bool given(const po::variables_map& vm, const char* name)
{
  return vm.count(name) != 0 && !vm[name].defaulted();
}

const std::string& text_of(const po::variables_map& vm, const char* name)
{
  return vm[name].as<std::string>();
}

std::uint64_t unsigned_value(const po::variables_map& vm, const char* name, std::uint64_t min,
                             std::uint64_t max)
{
  const std::string& text = text_of(vm, name);
  const auto parsed = cli::parse_unsigned(text);
  const bool too_large = parsed.status == NumberStatus::out_of_range ||
                         (parsed.status == NumberStatus::ok && parsed.value > max);
  if (too_large) {
    usage_error(invalid_value(name, text) + ": too large (at most " + std::to_string(max) + ")");
  }
  if (parsed.status != NumberStatus::ok || parsed.value < min) {
    std::string expected = max == unbounded
                             ? "a whole number >= " + std::to_string(min)
                             : "a whole number from " + std::to_string(min) + " to " +
                                 std::to_string(max);
    usage_error(invalid_value(name, text) + ": expected " + expected);
  }
  return parsed.value;
}

// Bounds of a real-valued option; `expected` says them in words for the error message.
struct RealRange {
  double min;
  bool min_inclusive;
  double max;
  const char* expected;
};

double real_value(const po::variables_map& vm, const char* name, const RealRange& range)
{
  const std::string& text = text_of(vm, name);
  const auto parsed = cli::parse_finite_double(text);
  const bool in_range = parsed.status == NumberStatus::ok &&
                        (range.min_inclusive ? parsed.value >= range.min
                                             : parsed.value > range.min) &&
                        parsed.value <= range.max;
  if (!in_range) {
    usage_error(invalid_value(name, text) + ": expected " + range.expected);
  }
  return parsed.value;
}

constexpr RealRange positive_seconds{0.0, false, max_seconds, "seconds > 0, at most 86400"};

template <typename Enum, std::size_t N>
Enum enum_value(const po::variables_map& vm, const char* name,
                const std::pair<const char*, Enum> (&choices)[N])
{
  const std::string& text = text_of(vm, name);
  std::string allowed;
  for (std::size_t i = 0; i < N; ++i) {
    if (text == choices[i].first) {
      return choices[i].second;
    }
    allowed += i == 0 ? "" : (i + 1 == N ? " or " : ", ");
    allowed += choices[i].first;
  }
  usage_error(invalid_value(name, text) + ": expected " + allowed);
}

std::size_t online_cpus()
{
  const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<std::size_t>(count) : 1;
}

std::vector<int> cpu_list(const std::string& text, bool local_pair)
{
  const std::size_t cpus = online_cpus();
  const std::string expected = "expected comma-separated CPU numbers, each below " +
                               std::to_string(cpus) + " (the online CPUs)";
  std::vector<int> result;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const auto parsed = cli::parse_unsigned(rest.substr(0, comma));
    if (parsed.status != NumberStatus::ok || parsed.value >= cpus) {
      usage_error(invalid_value("cpu", text) + ": " + expected);
    }
    result.push_back(static_cast<int>(parsed.value));
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  if (local_pair && result.size() > 2) {
    usage_error(invalid_value("cpu", text) +
                ": --local-pair takes one or two CPU numbers (publisher,subscriber)");
  }
  if (!local_pair && result.size() > 1) {
    usage_error(invalid_value("cpu", text) +
                ": one process takes one CPU number (two only with --local-pair)");
  }
  return result;
}

// True when `path` can be opened for writing. An existing file is left as it was; one that did
// not exist is removed again. O_NONBLOCK: a FIFO nobody reads fails at once instead of hanging.
bool can_write(const std::string& path, std::string& reason)
{
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC,
                        0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(path.c_str()); // it did not exist: leave nothing behind
    return true;
  }
  if (errno == EEXIST) {
    const int existing = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
    if (existing >= 0) {
      ::close(existing);
      return true;
    }
  }
  reason = std::generic_category().message(errno);
  return false;
}

void check_json_path(const std::string& path)
{
  namespace fs = std::filesystem;
  if (path.empty()) {
    usage_error("invalid value '' for --json: expected a file name");
  }
  const fs::path file(path);
  // Every check uses the error_code overloads: a name the system refuses (too long, a loop of
  // links) is the user's mistake to hear about in one line, not an exception's text.
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (error && error != std::errc::no_such_file_or_directory &&
      error != std::errc::not_a_directory) {
    usage_error(invalid_value("json", path) + ": " + error.message());
  }
  if (fs::is_directory(status)) {
    usage_error(invalid_value("json", path) + ": is a directory, expected a file name");
  }
  // Checked now so a typo fails before a ten-second run (or before --local-pair starts its
  // two processes), not after it.
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const fs::file_status directory_status = fs::status(directory, error);
  if (error && error != std::errc::no_such_file_or_directory &&
      error != std::errc::not_a_directory) {
    usage_error(invalid_value("json", path) + ": directory '" + directory.string() + "': " +
                error.message());
  }
  if (!fs::exists(directory_status)) {
    usage_error(invalid_value("json", path) + ": directory '" + directory.string() +
                "' does not exist");
  }
  if (!fs::is_directory(directory_status)) {
    usage_error(invalid_value("json", path) + ": '" + directory.string() +
                "' is not a directory");
  }
  std::string reason;
  if (!can_write(path, reason)) {
    usage_error(invalid_value("json", path) + ": cannot write it (" + reason + ")");
  }
}

// Translates a Boost exception into the one-line message the user sees.
[[noreturn]] void rethrow_as_usage_error(const po::error& error)
{
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&error)) {
    usage_error("unknown option '" + unknown->get_option_name() + "' (see --help)");
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
  // Remaining errors come from transports' typed options; Boost's text names the option.
  usage_error(error.what());
}

// --help wins even over a command line that does not parse, so a user mid-way through a
// broken command can still ask for it.
bool asks_for_help(const std::vector<std::string>& arguments)
{
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "--") {
      return false;
    }
    if (arguments[i] == "-h" || arguments[i] == "--help") {
      return true;
    }
  }
  return false;
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

struct TransportSlot {
  const TransportEntry* entry = nullptr;
  std::unique_ptr<Transport> transport;
};

RunConfig core_config(const po::variables_map& vm)
{
  RunConfig config;
  config.local_pair = vm["local-pair"].as<bool>();
  config.quiet = vm["quiet"].as<bool>();
  config.print_histogram = vm["histogram"].as<bool>();
  config.id = static_cast<std::uint32_t>(unsigned_value(vm, "id", 0, 65'535));
  config.role = config.id == 0 ? Role::publisher : Role::subscriber;

  constexpr auto max_size = std::numeric_limits<std::size_t>::max();
  config.payload_size = static_cast<std::size_t>(unsigned_value(vm, "size", 1, max_size));
  config.queue_length = static_cast<std::size_t>(unsigned_value(vm, "queue-length", 0, max_size));
  config.test_seconds = real_value(vm, "time", positive_seconds);
  if (given(vm, "count")) {
    config.count = unsigned_value(vm, "count", 1, unbounded);
  }
  config.send_hz =
    real_value(vm, "send-hz", {0.0, true, max_hz, "a rate in Hz from 0 to 1e9 (0 = as fast as possible)"});
  config.num_vars = static_cast<std::uint32_t>(unsigned_value(vm, "num-vars", 0, 65'535));
  config.subscribers = static_cast<std::uint32_t>(unsigned_value(vm, "subscribers", 0, 1'024));
  config.wait_seconds = real_value(vm, "wait", positive_seconds);
  config.warmup_seconds =
    real_value(vm, "warmup-time", {0.0, true, max_seconds, "seconds from 0 to 86400"});
  if (given(vm, "warmup-count")) {
    config.warmup_count = unsigned_value(vm, "warmup-count", 0, unbounded);
  }
  if (given(vm, "max-loss")) {
    config.max_loss_percent =
      real_value(vm, "max-loss", {0.0, true, 100.0, "a percentage from 0 to 100"});
  }

  static constexpr std::pair<const char*, Mode> modes[] = {{"stream", Mode::stream},
                                                           {"ping-pong", Mode::ping_pong}};
  config.mode = enum_value(vm, "mode", modes);
  config.probe_hz = real_value(vm, "probe-hz", {0.0, false, max_hz, "a rate in Hz > 0, at most 1e9"});
  config.probe_timeout_seconds = real_value(vm, "probe-timeout", positive_seconds);
  config.idle_timeout_seconds = real_value(vm, "idle-timeout", positive_seconds);

  static constexpr std::pair<const char*, WaitStrategy> strategies[] = {
    {"block", WaitStrategy::block}, {"yield", WaitStrategy::yield}, {"spin", WaitStrategy::spin}};
  config.wait_strategy = enum_value(vm, "wait-strategy", strategies);
  if (given(vm, "cpu")) {
    config.cpus = cpu_list(text_of(vm, "cpu"), config.local_pair);
  }

  if (given(vm, "json")) {
    config.json_path = text_of(vm, "json");
    check_json_path(config.json_path);
  }
  return config;
}

void check_combinations(const po::variables_map& vm, const RunConfig& config)
{
  if (given(vm, "time") && given(vm, "count")) {
    usage_error("give either -t/--time or --count, not both");
  }
  if (given(vm, "warmup-time") && given(vm, "warmup-count")) {
    usage_error("give either --warmup-time or --warmup-count, not both");
  }
  if (config.local_pair && config.id != 0) {
    usage_error("--local-pair runs both the publisher and the subscriber: drop -i " +
                std::to_string(config.id));
  }
  // The local pair starts exactly one subscriber, so waiting for more would always time out.
  if (config.local_pair && given(vm, "subscribers") && config.subscribers != 1) {
    usage_error("--local-pair runs one subscriber: drop --subscribers " +
                std::to_string(config.subscribers));
  }
}

// The transport the command line chose: the one named (-u, -m, -b, --zmq, --shm); else the one
// a setting of its own selects (--mc-ttl, --zmq-nodrop, --shm-history); else the default.
// Two named, or two selected by settings alone, are a conflict. A setting beside another
// transport's name is not a second transport: check_options_read() refuses it by name.
TransportSlot* choose_transport(std::vector<TransportSlot>& slots, const po::variables_map& vm,
                                const RunConfig& config)
{
  const auto find_slot = [&](std::string_view name) -> TransportSlot* {
    for (auto& slot : slots) {
      if (slot.entry->name == name) {
        return &slot;
      }
    }
    return nullptr;
  };
  const auto the_only = [&](auto&& picks) -> TransportSlot* {
    TransportSlot* found = nullptr;
    for (auto& slot : slots) {
      if (!picks(*slot.transport)) {
        continue;
      }
      if (found != nullptr) {
        usage_error("conflicting transports: " + found->entry->name + " and " +
                    slot.entry->name + "; give only one");
      }
      found = &slot;
    }
    return found;
  };

  if (auto* by_name = the_only([&](const Transport& t) { return t.named(vm); })) {
    return by_name;
  }
  if (auto* by_setting = the_only([&](const Transport& t) { return t.selected(vm); })) {
    return by_setting;
  }
  if (config.local_pair) {
    auto* udp = find_slot("udp");
    if (udp == nullptr) {
      usage_error("--local-pair needs a transport: this build has no udp (see --help)");
    }
    return udp;
  }
  // MADARA's default: multicast on 239.255.0.1:4150, when this build has it.
  auto* multicast = find_slot("multicast");
  if (multicast == nullptr) {
    usage_error("no transport given: use -u host:port (see --help)");
  }
  return multicast;
}

// Every option the user gave is read by the core or by the chosen transport: one that belongs
// to another transport (--fragment-size with --shm, --mc-ttl with -b) would otherwise be
// ignored without a word.
void check_options_read(TransportSlot& chosen, std::vector<TransportSlot>& slots,
                        const std::vector<std::string>& given_options,
                        const po::options_description& core)
{
  for (const std::string& name : given_options) {
    if (core.find_nothrow(name, false) != nullptr || chosen.transport->reads_option(name)) {
      continue;
    }
    std::vector<std::string> readers;
    for (auto& slot : slots) {
      if (slot.transport->reads_option(name)) {
        readers.push_back(slot.entry->name);
      }
    }
    std::string owners;
    for (std::size_t i = 0; i < readers.size(); ++i) {
      owners += i == 0 ? "" : (i + 1 == readers.size() ? " and " : ", ");
      owners += readers[i];
    }
    usage_error("--" + name + " does not apply to the " + chosen.entry->name + " transport" +
                (owners.empty() ? "" : " (it is an option of " + owners + ")"));
  }
}

std::unique_ptr<Transport> select_transport(std::vector<TransportSlot>& slots,
                                            const po::variables_map& vm,
                                            const std::vector<std::string>& given_options,
                                            const po::options_description& core,
                                            RunConfig& config)
{
  TransportSlot* chosen = choose_transport(slots, vm, config);
  check_options_read(*chosen, slots, given_options, core);
  if (config.local_pair) {
    // The local pair derives each process's arguments from the transport's (or from its
    // loopback defaults when none were given), and each child validates its own with its
    // role. Asking now reports a wrong transport option (say, one -u where the pair needs
    // none or two) before anything runs. Not validate(publisher): the pair may leave the
    // publisher's port to netprof (tcp://127.0.0.1:*), which a lone publisher may not.
    chosen->transport->local_pair_arguments();
  } else {
    chosen->transport->validate(config.role);
  }
  config.transport_name = chosen->entry->name;
  return std::move(chosen->transport);
}

} // namespace

ParsedCommandLine parse_command_line(int argc, const char* const argv[],
                                     const TransportRegistry& registry)
{
  ParsedCommandLine result;
  const std::vector<std::string> arguments(argv, argv + std::max(argc, 0));
  // Without argv[0]; built here because Boost's (argc, argv) form assumes argc >= 1.
  const std::vector<std::string> options_given(arguments.begin() + (arguments.empty() ? 0 : 1),
                                               arguments.end());

  po::options_description core;
  for (const auto& group : cli::core_option_groups()) {
    core.add(group);
  }
  po::options_description description;
  description.add(core);
  std::vector<TransportSlot> slots;
  for (const auto& entry : registry.entries()) {
    auto& slot = slots.emplace_back(TransportSlot{&entry, entry.make()});
    // add() shares the option objects, so notify() writes into this transport's own fields.
    description.add(slot.transport->options());
  }
  po::options_description everything;
  everything.add(description);
  everything.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add(positional_name, -1);

  po::variables_map vm;
  std::vector<std::string> given_options; // long names, in the order given, each once
  try {
    // Guessing is off: "--wait" must never silently become "--wait-strategy", and a typo
    // must be reported, not completed.
    const auto style = po::command_line_style::default_style &
                       ~po::command_line_style::allow_guessing;
    const auto parsed = po::command_line_parser(options_given)
                          .options(everything)
                          .positional(positional)
                          .style(style)
                          .run();
    // First: an option that swallowed the next option as its value ("--send-hz --count 5")
    // leaves that option's value behind as a stray argument, and the missing value is the
    // mistake to name.
    reject_options_taken_as_values(parsed, description);
    for (const auto& option : parsed.options) {
      if (option.string_key != positional_name) {
        continue;
      }
      if (option.position_key < 0) {
        usage_error("unknown option '" + option.original_tokens.front() + "' (see --help)");
      }
      usage_error("unexpected argument '" + option.value.front() + "'");
    }
    for (const auto& option : parsed.options) {
      if (std::find(given_options.begin(), given_options.end(), option.string_key) ==
          given_options.end()) {
        given_options.push_back(option.string_key);
      }
    }
    po::store(parsed, vm);
  } catch (const po::error& error) {
    if (!asks_for_help(arguments)) {
      rethrow_as_usage_error(error);
    }
  } catch (const UsageError&) {
    if (!asks_for_help(arguments)) {
      throw;
    }
  }

  if (asks_for_help(arguments) || vm.count("help") != 0) {
    result.action = ParsedCommandLine::Action::help;
    result.text = help_text(registry);
    return result;
  }
  if (vm.count("version") != 0) {
    result.action = ParsedCommandLine::Action::version;
    result.text = cli::version_text();
    return result;
  }
  if (vm.count("list-transports") != 0) {
    result.action = ParsedCommandLine::Action::list_transports;
    for (const TransportEntry& entry : registry.entries()) {
      result.text += entry.name + "\t" + entry.summary + "\n";
    }
    return result;
  }

  try {
    po::notify(vm);
  } catch (const po::error& error) {
    rethrow_as_usage_error(error);
  }

  result.config = core_config(vm);
  check_combinations(vm, result.config);
  result.transport = select_transport(slots, vm, given_options, core, result.config);
  result.config.command_line = arguments;
  return result;
}

} // namespace netprof
