#pragma once

// What the bare baselines in bench/ have in common (still no netprof code): strict option
// parsing, pinning, percentiles and reaping the child process, so each baseline file holds only
// its own transport's loop.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

namespace bare {

struct UsageError {
  const char* message; // null: help was asked for
};

// What a baseline's main does with a UsageError: help goes to stdout (exit 0); a mistake is
// named on stderr with the usage after it (exit 2). `usage` ends with a newline.
inline int usage_exit_status(const UsageError& error, const char* program, const char* usage)
{
  if (error.message == nullptr) {
    std::fputs(usage, stdout);
    return 0;
  }
  std::fprintf(stderr, "%s: %s\n%s", program, error.message, usage);
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
      throw UsageError{nullptr};
    if (i + 1 >= argc)
      throw UsageError{"every option takes a value"};
    take(flag, std::string_view(argv[++i]));
  }
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

// --cpu A,B: the CPUs of the two processes (pinger and ponger, or sender and receiver).
inline std::pair<int, int> parse_cpu_pair(std::string_view value, const char* usage)
{
  const auto comma = value.find(',');
  if (comma == std::string_view::npos)
    throw UsageError{usage};
  return {parse_number<int>(value.substr(0, comma), 0, CPU_SETSIZE - 1, "bad CPU number"),
          parse_number<int>(value.substr(comma + 1), 0, CPU_SETSIZE - 1, "bad CPU number")};
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

// Nearest rank, per mille (500 = p50, 999 = p99.9) of values sorted ascending; 0 when empty.
inline std::int64_t percentile(const std::vector<std::int64_t>& sorted, std::size_t per_mille)
{
  if (sorted.empty())
    return 0;
  const std::size_t rank = (per_mille * sorted.size() + 999) / 1000;
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// Ends a JSON line whose first fields the caller has printed (each followed by a comma): how
// many round trips, their percentiles, and the one-way p50 (RTT p50 / 2), in nanoseconds.
inline void print_round_trips(std::vector<std::int64_t> rtts)
{
  std::sort(rtts.begin(), rtts.end());
  const auto at = [&](std::size_t per_mille) {
    return static_cast<long long>(percentile(rtts, per_mille));
  };
  std::printf("\"iterations\":%zu,\"rtt_min_ns\":%lld,\"rtt_p50_ns\":%lld,"
              "\"one_way_p50_ns\":%.1f,\"rtt_p90_ns\":%lld,\"rtt_p99_ns\":%lld,"
              "\"rtt_p99_9_ns\":%lld,\"rtt_max_ns\":%lld}\n",
              rtts.size(), at(0), at(500), static_cast<double>(at(500)) / 2.0, at(900), at(990),
              at(999), at(1000));
}

// Between empty polls of a busy-polling loop, as netprof's spin waits do: the core does not
// fill its pipeline with loads of the line the other core is about to write.
inline void relax() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Pins the calling process; false with errno set when the kernel refuses. No CPU: nothing to do.
inline bool pin_to_cpu(std::optional<int> cpu) noexcept
{
  if (!cpu)
    return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<unsigned>(*cpu), &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

// A loopback TCP port free right now (found before a fork so both processes know it); nothing
// when the kernel would not give one, with errno set.
inline std::optional<std::uint16_t> free_loopback_tcp_port() noexcept
{
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return std::nullopt;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool bound = bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                     getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  close(fd);
  errno = error;
  return bound ? std::optional<std::uint16_t>(ntohs(address.sin_port)) : std::nullopt;
}

// True when the child exited 0 within `timeout`; otherwise it is killed, reaped, and false.
inline bool reap_child(pid_t child, std::chrono::steady_clock::duration timeout)
{
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child)
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (done < 0 && errno != EINTR)
      return false;
    if (std::chrono::steady_clock::now() >= give_up) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return false;
    }
    usleep(1000);
  }
}

} // namespace bare
