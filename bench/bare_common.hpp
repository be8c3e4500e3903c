#pragma once

// What the bare baselines have in common (still no netprof code): their options
// (bare_options.hpp), pinning, percentiles and reaping the child process, so each baseline file
// holds only its own transport's loop.

#include "bare_options.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace bare {

using Clock = std::chrono::steady_clock;

// "netbare" SEPARATOR "pair-PID-16 HEX DIGITS": as long as netprof's --local-pair prefix ("netprof"
// SEPARATOR "pair-PID-..."), so that a baseline's every message names a topic or channel as long
// as netprof's.
inline std::string pair_name_prefix(char separator)
{
  std::random_device random;
  char text[64];
  std::snprintf(text, sizeof text, "netbare%cpair-%ld-%08x%08x", separator,
                static_cast<long>(getpid()), random(), random());
  return text;
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

// One JSON line of the shared-memory ping-pongs (shm_ring_pingpong, iceoryx_pingpong), in their
// own spacing: how many round trips, the bytes each way, `own` (the program's own fields, each
// followed by ", "), then the round trips' min, p50 and p99 and the one-way p50 (RTT p50 / 2),
// in nanoseconds.
inline void print_spaced_round_trips(std::vector<std::int64_t> rtts, std::size_t size,
                                     std::size_t echo_size, const std::string& own)
{
  std::sort(rtts.begin(), rtts.end());
  std::printf("{\"iterations\": %zu, \"size\": %zu, \"echo_size\": %zu, %s"
              "\"rtt_min_ns\": %lld, \"rtt_p50_ns\": %lld, \"rtt_p99_ns\": %lld, "
              "\"one_way_p50_ns\": %.1f}\n",
              rtts.size(), size, echo_size, own.c_str(), static_cast<long long>(rtts.front()),
              static_cast<long long>(percentile(rtts, 500)),
              static_cast<long long>(percentile(rtts, 990)),
              static_cast<double>(percentile(rtts, 500)) / 2.0);
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

// Pins the calling process, or throws saying why not. Called before a library (ZeroMQ, NNG)
// starts its threads, so that they inherit the pinning, as netprof's do.
inline void pin_or_throw(std::optional<int> cpu)
{
  if (!pin_to_cpu(cpu))
    throw std::runtime_error(std::string("cannot pin to the CPU given with --cpu: ") +
                             std::strerror(errno));
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
