#pragma once

// Command-line options as data. Every option, the core's and each transport's, is one
// OptionSpec: its flag, how its value is checked, its help text and default, and how the local
// pair passes it on to its two processes. Shared code (src/options/) declares the specs to the
// parser, checks values against them with one wording, and forwards what the user gave to the
// local pair's children; nobody declares, parses or rebuilds an option by hand.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace netprof {

// How a value is checked; each kind has its own getter on OptionValues.
struct Switch {}; // no value: given or not

struct WholeNumber {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  // A value beyond the maximum is refused as "too large (at most N)" rather than with the
  // whole range. The core's options say it that way, the transports' state the range.
  bool names_too_large = false;
  // A byte count: "1K", "4MiB", "1G" are taken (K = 1024), as iperf3 and sweep.py take them.
  bool byte_suffixes = false;
};

struct RealNumber {
  double min = 0.0;
  bool min_inclusive = true;
  double max = 0.0;
  std::string expected; // the range in words, for the message: "seconds > 0, at most 86400"
};

struct Choice {
  std::vector<std::string> names; // a value is one of these; getters return its index
};

struct Text {};     // any text; its reader checks it (addresses, names)
struct CpuList {};  // comma-separated CPU numbers, each below the number of online CPUs
struct FilePath {}; // a file this process can write, checked before anything runs

using ValueRule = std::variant<Switch, WholeNumber, RealNumber, Choice, Text, CpuList, FilePath>;

// How the local pair passes an option on to its two processes.
enum class PairRoute {
  both,            // the tokens as the user wrote them, to both
  publisher_only,  // to the publisher alone
  subscriber_only, // to the subscriber alone
  neither,         // the pair sets it itself, or the transport derives it (local_pair_arguments)
  split            // "PUB,SUB": the first value to the publisher, the second to the subscriber
};

// How an address option names the stream of publisher k under --publishers: each publisher
// has addresses of its own, derived from the ones given so that one command line serves all.
enum class StreamRule {
  none,        // the same for every publisher (a setting, not an address)
  port_offset, // "host:port": port + k (a port 0, "any", stays 0)
  name_suffix, // a path or name: stream 0 as given, stream k with ".k" appended
  address      // a URL: port_offset where it ends in ":port", else name_suffix ("ipc://path");
               // a port left open (":*") stays open
};

struct OptionSpec {
  // `names`: the long name, then the short one if there is one ("size,s").
  OptionSpec(std::string_view names, std::string value_name, ValueRule rule, std::string help);

  // Settings beyond the four every option has, to chain onto the constructor.
  OptionSpec with_default(std::string text) &&;  // used when not given; --help shows "(=128)"
  OptionSpec with_implicit(std::string text) &&; // the value of the flag given alone (--shm)
  OptionSpec repeatable() &&;                    // -u a -u b: every value is kept, in order
  OptionSpec passed(PairRoute route) &&;         // how the local pair passes it on
  OptionSpec per_stream(StreamRule rule) &&;     // an address that each publisher moves
  // ... whose port moves by `ports_each` per stream: the ports one stream takes from the one
  // given (NNG's data, back and control channels: 3).
  OptionSpec per_stream(StreamRule rule, std::uint32_t ports_each) &&;
  // ... a name that stream k takes with `separator` and k after it (DDS topic names: '_').
  OptionSpec per_stream_named(char separator) &&;

  std::string long_name;  // "size"
  char short_name = '\0'; // 's'; '\0' for none
  std::string value_name; // "BYTES", shown in --help; unused for a Switch
  ValueRule rule;
  std::string help;
  std::optional<std::string> default_text;
  std::optional<std::string> implicit_text;
  bool is_repeatable = false;
  PairRoute pair = PairRoute::both;
  StreamRule stream = StreamRule::none;
  std::uint32_t stream_ports = 1; // how far each stream's port moves
  char stream_separator = '.';    // what comes between a name and its stream's number
};

// Options shown together in --help under one caption.
struct OptionGroup {
  std::string caption;
  std::vector<OptionSpec> options;

  bool contains(std::string_view long_name) const noexcept;
  // The spec of that name; std::logic_error when there is none (a typo in the code).
  const OptionSpec& operator[](std::string_view long_name) const;
};

// One option as the user gave it: its long name, its values and the tokens as written.
struct GivenOption {
  std::string long_name;
  std::vector<std::string> values; // none for a switch, or a flag that takes its implicit value
  std::vector<std::string> tokens; // {"-s", "64"}, {"--size=64"} or {"-s64"}
};

// The arguments each process of the local pair gets for something.
struct LocalPairArguments {
  std::vector<std::string> publisher;
  std::vector<std::string> subscriber;
};

// What the user gave, in order. Getters check a value against its spec and throw UsageError
// in the one wording every option shares: "invalid value 'x' for --name: expected ...".
class OptionValues {
public:
  void add(GivenOption option);

  bool given(std::string_view long_name) const noexcept;
  const std::vector<GivenOption>& in_order() const noexcept { return m_given; }

  // The last value given, else the implicit value of a flag given alone, else the default;
  // none when there is none of these.
  std::optional<std::string> text(const OptionSpec& spec) const;
  // Every value given to a repeatable option, in order.
  std::vector<std::string> texts(const OptionSpec& spec) const;

  bool on(const OptionSpec& spec) const;                                   // Switch
  std::optional<std::uint64_t> whole_number(const OptionSpec& spec) const; // WholeNumber
  std::optional<double> real_number(const OptionSpec& spec) const;         // RealNumber
  std::optional<std::size_t> choice(const OptionSpec& spec) const;         // Choice: the index
  std::optional<std::vector<int>> cpu_list(const OptionSpec& spec) const;  // CpuList
  std::optional<std::string> file_path(const OptionSpec& spec) const;      // FilePath

private:
  const GivenOption* last(std::string_view long_name) const noexcept;

  std::vector<GivenOption> m_given;
};

// Parses `arguments` (without argv[0]) against `groups`. Throws UsageError with one line:
// unknown option, missing value, an option given twice, a stray argument. Values are not
// checked here but by OptionValues' getters, when they are read.
OptionValues parse_options(const std::vector<std::string>& arguments,
                           const std::vector<const OptionGroup*>& groups);

// The values `values` give the options of `group` for publisher `stream`'s own stream, by each
// spec's StreamRule (stream 0: as given). Throws UsageError for a port that would pass 65535.
OptionValues values_for_stream(const OptionValues& values, const OptionGroup& group,
                               std::uint32_t stream);

// Whether any option of `group` names an address that each publisher moves (StreamRule).
bool has_streams(const OptionGroup& group) noexcept;

// What the user gave that the local pair passes on, routed by each spec's PairRoute; the
// options of no group in `groups` are left out.
LocalPairArguments route_to_local_pair(const OptionValues& values,
                                       const std::vector<const OptionGroup*>& groups);

} // namespace netprof
