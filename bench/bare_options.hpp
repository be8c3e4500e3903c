#pragma once

// How every bare baseline reads its command line: flag-value pairs, strictly checked, the flags
// most of them share taken in one place, and a mistake answered with the usage and exit 2.

#include <sched.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace bare {

struct UsageError {
  std::string message; // empty: help was asked for
};

// What a baseline's main does with a UsageError: help goes to stdout (exit 0); a mistake is
// named on stderr with the usage after it (exit 2). `usage` ends with a newline.
inline int usage_exit_status(const UsageError& error, const char* program, const char* usage)
{
  if (error.message.empty()) {
    std::fputs(usage, stdout);
    return 0;
  }
  std::fprintf(stderr, "%s: %s\n%s", program, error.message.c_str(), usage);
  return 2;
}

// A baseline's main: its options from parse(argc, argv) (a UsageError answered as
// usage_exit_status says), then the exit status run(options) returns.
template <typename Parse, typename Run>
int run_main(int argc, char** argv, const char* program, const char* usage, Parse&& parse,
             Run&& run)
{
  decltype(parse(argc, argv)) options;
  try {
    options = parse(argc, argv);
  } catch (const UsageError& error) {
    return usage_exit_status(error, program, usage);
  }
  return run(options);
}

template <typename Number>
Number parse_number(std::string_view text, Number lowest, Number highest, const char* message)
{
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < lowest || value > highest)
    throw UsageError{message};
  return value;
}

// Walks argv as flag-value pairs, handing each to take(flag, value). -h/--help, and a flag
// given last without its value, end the walk with a UsageError.
template <typename Take> void for_each_option(int argc, char** argv, Take&& take)
{
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help")
      throw UsageError{};
    if (i + 1 >= argc)
      throw UsageError{"every option takes a value"};
    take(flag, std::string_view(argv[++i]));
  }
}

// Options{} with each flag-value pair of the command line handed to take(flag, value, options),
// which returns false for a flag it does not know.
template <typename Options, typename Take>
Options parse_command_line(int argc, char** argv, Take&& take)
{
  Options options;
  for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (!take(flag, value, options))
      throw UsageError{"unknown option " + std::string(flag)};
  });
  return options;
}

// run_main's parse for a baseline whose options are all flag-value pairs: Options{} with each
// pair handed to take(flag, value, options), as parse_command_line does.
template <typename Options, typename Take> auto command_line_parser(Take take)
{
  return [take](int argc, char** argv) { return parse_command_line<Options>(argc, argv, take); };
}

// --iterations (1 to 2^32) and --warmup (0 to 2^32) of the socket ping-pongs, into `iterations`
// and `warmup`; false for any other flag.
inline bool take_count_option(std::string_view flag, std::string_view value,
                              std::uint64_t& iterations, std::uint64_t& warmup)
{
  if (flag == "--iterations")
    iterations = parse_number<std::uint64_t>(value, 1, std::uint64_t{1} << 32,
                                             "--iterations must be 1 to 2^32");
  else if (flag == "--warmup")
    warmup =
        parse_number<std::uint64_t>(value, 0, std::uint64_t{1} << 32, "--warmup must be 0 to 2^32");
  else
    return false;
  return true;
}

// --receivers (1 to 64) and --count (1 to 2^40) of the round-robin baselines (one sender dealing
// --count messages to --receivers receivers), into `receivers` and `count`; false for any other
// flag.
inline bool take_dealing_option(std::string_view flag, std::string_view value,
                                std::size_t& receivers, std::uint64_t& count)
{
  if (flag == "--receivers")
    receivers = parse_number<std::size_t>(value, 1, 64, "--receivers must be 1 to 64");
  else if (flag == "--count")
    count =
        parse_number<std::uint64_t>(value, 1, std::uint64_t{1} << 40, "--count must be 1 to 2^40");
  else
    return false;
  return true;
}

// --cpu A,B: the CPUs of the two processes (pinger and ponger, or sender and receiver).
inline std::pair<int, int> parse_cpu_pair(std::string_view value, const char* usage)
{
  const auto comma = value.find(',');
  if (comma == std::string_view::npos)
    throw UsageError{usage};
  return {parse_number<int>(value.substr(0, comma), 0, CPU_SETSIZE - 1, "bad CPU number"),
          parse_number<int>(value.substr(comma + 1), 0, CPU_SETSIZE - 1, "bad CPU number")};
}

// The first and the second CPU of an optional --cpu A,B (the pinger's and the ponger's, or the
// sender's and the receiver's); none when it was not given.
inline std::optional<int> first_cpu(const std::optional<std::pair<int, int>>& cpus)
{
  return cpus ? std::optional<int>(cpus->first) : std::nullopt;
}

inline std::optional<int> second_cpu(const std::optional<std::pair<int, int>>& cpus)
{
  return cpus ? std::optional<int>(cpus->second) : std::nullopt;
}

// What the shared-memory ping-pongs (shm_ring_pingpong, iceoryx_pingpong) run: round trips
// measured after a warm-up, pinger and ponger pinned.
struct RoundTrips {
  std::uint64_t iterations = 1'000'000;
  std::uint64_t warmup = 100'000;
  std::pair<int, int> cpus{0, 1};
};

// Takes --iterations, --warmup or --cpu into `runs`; false for any other flag.
inline bool take_round_trip_option(std::string_view flag, std::string_view value, RoundTrips& runs)
{
  if (flag == "--iterations")
    runs.iterations =
        parse_number<std::uint64_t>(value, 1, 1'000'000'000, "--iterations needs 1..1e9");
  else if (flag == "--warmup")
    runs.warmup = parse_number<std::uint64_t>(value, 0, 1'000'000'000, "--warmup needs 0..1e9");
  else if (flag == "--cpu")
    runs.cpus = parse_cpu_pair(value, "--cpu needs PINGER,PONGER");
  else
    return false;
  return true;
}

// The largest message the baselines taking SizedRoundTrips or TimedStream send: 1 MiB.
inline constexpr std::size_t max_sized_message = std::size_t{1} << 20;

// What the ping-pongs of messages of any size (bare_mqtt_pingpong, bare_redis_pingpong,
// bare_nng_pingpong, bare_fastdds_pingpong) send, beside their own settings: netprof's ping-pong
// of -s 64 by default (a 116-byte probe, a 68-byte echo), round trips counted after a warm-up,
// and the two processes' CPUs (none: unpinned).
struct SizedRoundTrips {
  static constexpr std::size_t min_size = sizeof(std::uint64_t); // room for the sequence
  std::size_t size = 116;
  std::size_t echo_size = 68;
  std::uint64_t iterations = 20000;
  std::uint64_t warmup = 2000;
  std::optional<std::pair<int, int>> cpus;
};

// Takes --size, --echo-size (8 to 1 MiB each), --iterations, --warmup or --cpu into `runs`; false
// for any other flag.
inline bool take_sized_round_trip_option(std::string_view flag, std::string_view value,
                                         SizedRoundTrips& runs)
{
  constexpr std::size_t min_size = SizedRoundTrips::min_size;
  if (flag == "--size")
    runs.size = parse_number<std::size_t>(value, min_size, max_sized_message,
                                          "--size must be 8 to 1048576");
  else if (flag == "--echo-size")
    runs.echo_size = parse_number<std::size_t>(value, min_size, max_sized_message,
                                               "--echo-size must be 8 to 1048576");
  else if (flag == "--cpu")
    runs.cpus = parse_cpu_pair(value, "--cpu takes PINGER,PONGER, e.g. 0,1");
  else
    return take_count_option(flag, value, runs.iterations, runs.warmup);
  return true;
}

// What the broker streams (bare_mqtt_stream, bare_redis_stream) send, beside their broker:
// netprof's stream of -s 128 by default (180-byte messages, 68-byte echoes), --warmup seconds
// unmeasured, then --seconds measured, --probe-hz probes a second (0: none), and the two
// processes' CPUs (none: unpinned).
struct TimedStream {
  // Room for the message's tag, probe mark and, in an end message, the count at byte 8.
  static constexpr std::size_t min_size = 16;
  std::size_t size = 180;
  std::size_t echo_size = 68;
  double seconds = 2.0;
  double warmup = 0.5;
  double probe_hz = 1000;
  std::optional<std::pair<int, int>> cpus;
};

// Takes --size (16 to 1 MiB), --echo-size (2 to 1 MiB), --seconds, --warmup, --probe-hz or --cpu
// into `stream`; false for any other flag.
inline bool take_timed_stream_option(std::string_view flag, std::string_view value,
                                     TimedStream& stream)
{
  if (flag == "--size")
    stream.size = parse_number<std::size_t>(value, TimedStream::min_size, max_sized_message,
                                            "--size must be 16 to 1048576");
  else if (flag == "--echo-size")
    stream.echo_size =
        parse_number<std::size_t>(value, 2, max_sized_message, "--echo-size must be 2 to 1048576");
  else if (flag == "--seconds")
    stream.seconds = parse_number<double>(value, 0.1, 3600.0, "--seconds must be 0.1 to 3600");
  else if (flag == "--warmup")
    stream.warmup = parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  else if (flag == "--probe-hz")
    stream.probe_hz = parse_number<double>(value, 0.0, 1e6, "--probe-hz must be 0 to 1e6");
  else if (flag == "--cpu")
    stream.cpus = parse_cpu_pair(value, "--cpu takes PUBLISHER,SUBSCRIBER, e.g. 0,1");
  else
    return false;
  return true;
}

} // namespace bare
