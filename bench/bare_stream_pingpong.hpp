#pragma once

// What the bare connected-socket ping-pongs share (bare_tcp_pingpong.cpp, bare_uds_pingpong.cpp;
// still no netprof code): a connected pair of sockets made before the fork, a pinger that sends
// --size bytes and times the --echo-size bytes that come back, a ponger that answers each ping.
// Each file only makes its pair. A byte stream is read until the whole message is in; a
// SOCK_SEQPACKET record arrives whole.
//
// With --size 124 --echo-size 60 the bytes are netprof's own over a stream (-s 64, its 52-byte
// header and 8-byte frame header out; a header and a frame header back), so the ratio printed by
// transports/tcp/bench/bench_tcp.sh and bench_uds.sh is netprof's cost on top of the kernel's.
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (socket error,
// timeout, corrupt echo), 2 bad command line.

#include "bare_common.hpp"

#include <sys/prctl.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace bare {

enum class Wait { block, spin };

struct StreamOptions {
  std::size_t size = 64;
  std::size_t echo_size = 0; // 0: the ping's size
  Wait wait = Wait::block;
  RoundTrips runs{100000, 10000, {0, 1}};
  bool pinned = false;
  std::string kind; // a file's own option (--type for uds), "" when none was given
};

struct Failure {
  const char* what;
  int error; // errno, or 0 when the failure is not a system call's
};

// The two ends: the pinger keeps `first`, the ponger `second`. `record` when each message
// arrives in one read (SOCK_SEQPACKET).
struct SocketPair {
  int first = -1;
  int second = -1;
  bool record = false;
};

namespace stream_detail {

// Generous for loopback, yet a lost peer ends the run in seconds.
constexpr auto receive_timeout = std::chrono::seconds(10);
constexpr std::size_t sequence_bytes = sizeof(std::uint64_t);
constexpr std::size_t max_size = std::size_t{1} << 20;

inline void set_timeout(int fd)
{
  const timeval limit{static_cast<time_t>(receive_timeout.count()), 0};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0)
    throw Failure{"setsockopt SO_RCVTIMEO", errno};
}

// Exactly `size` bytes into `buffer` (one record, for SOCK_SEQPACKET).
inline void receive_exactly(int fd, std::byte* buffer, std::size_t size, Wait wait, bool record)
{
  const auto give_up = std::chrono::steady_clock::now() + receive_timeout;
  std::size_t have = 0;
  for (std::uint32_t turn = 1; have < size; ++turn) {
    const ssize_t got = recv(fd, buffer + have, size - have, wait == Wait::spin ? MSG_DONTWAIT : 0);
    if (got > 0) {
      have += static_cast<std::size_t>(got);
      if (record && have != size)
        throw Failure{"a record of the wrong size arrived", 0};
      continue;
    }
    if (got == 0)
      throw Failure{"the peer closed the connection", 0};
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      throw Failure{"recv", errno};
    if (wait == Wait::block)
      throw Failure{"timed out waiting for a message", 0};
    relax();
    // The clock is read only now and then: the spin loop should cost one syscall a turn.
    if ((turn & 1023) == 0 && std::chrono::steady_clock::now() >= give_up)
      throw Failure{"timed out waiting for a message", 0};
  }
}

inline void send_exactly(int fd, const std::byte* bytes, std::size_t size)
{
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t put = send(fd, bytes + sent, size - sent, MSG_NOSIGNAL);
    if (put > 0)
      sent += static_cast<std::size_t>(put);
    else if (put < 0 && errno != EINTR)
      throw Failure{"send", errno};
  }
}

} // namespace stream_detail

// Parses the common options; `take_own(flag, value, options)` may claim one of the file's own
// and returns whether it did.
template <typename TakeOwn>
StreamOptions parse_stream_options(int argc, char** argv, TakeOwn&& take_own)
{
  using stream_detail::max_size;
  using stream_detail::sequence_bytes;
  StreamOptions options;
  for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (take_own(flag, value, options))
      return;
    if (flag == "--cpu")
      options.pinned = true;
    if (take_round_trip_option(flag, value, options.runs))
      return;
    if (flag == "--size")
      options.size = parse_number<std::size_t>(value, sequence_bytes, max_size,
                                               "--size must be 8 to 1048576 bytes");
    else if (flag == "--echo-size")
      options.echo_size = parse_number<std::size_t>(value, sequence_bytes, max_size,
                                                    "--echo-size must be 8 to 1048576 bytes");
    else if (flag == "--wait" && (value == "block" || value == "spin"))
      options.wait = value == "spin" ? Wait::spin : Wait::block;
    else if (flag == "--wait")
      throw UsageError{"--wait must be block or spin"};
    else
      throw UsageError{"unknown option"};
  });
  if (options.echo_size == 0)
    options.echo_size = options.size;
  return options;
}

// The child: answers `total` pings, then exits.
inline void run_ponger(const SocketPair& pair, const StreamOptions& options, std::uint64_t total)
{
  std::vector<std::byte> ping(options.size);
  std::vector<std::byte> echo(options.echo_size, std::byte{0x5a});
  for (std::uint64_t i = 0; i < total; ++i) {
    stream_detail::receive_exactly(pair.second, ping.data(), ping.size(), options.wait,
                                   pair.record);
    std::memcpy(echo.data(), ping.data(), stream_detail::sequence_bytes);
    stream_detail::send_exactly(pair.second, echo.data(), echo.size());
  }
}

// The parent: sends, waits for the echo, and keeps each measured round trip.
inline std::vector<std::int64_t> run_pinger(const SocketPair& pair, const StreamOptions& options)
{
  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  std::vector<std::byte> echo(options.echo_size);
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.runs.iterations);
  const std::uint64_t total = options.runs.warmup + options.runs.iterations;
  for (std::uint64_t sequence = 0; sequence < total; ++sequence) {
    std::memcpy(ping.data(), &sequence, stream_detail::sequence_bytes);
    const auto sent_at = std::chrono::steady_clock::now();
    stream_detail::send_exactly(pair.first, ping.data(), ping.size());
    stream_detail::receive_exactly(pair.first, echo.data(), echo.size(), options.wait, pair.record);
    const auto received_at = std::chrono::steady_clock::now();
    std::uint64_t echoed = 0;
    std::memcpy(&echoed, echo.data(), stream_detail::sequence_bytes);
    if (echoed != sequence)
      throw Failure{"the echo does not answer the ping sent", 0};
    if (sequence >= options.runs.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(received_at - sent_at).count());
  }
  return rtts;
}

inline void report_failure(const char* program, const Failure& failure)
{
  if (failure.error != 0)
    std::fprintf(stderr, "%s: %s: %s\n", program, failure.what, std::strerror(failure.error));
  else
    std::fprintf(stderr, "%s: %s\n", program, failure.what);
}

// The whole program once the options are parsed: makes the pair, forks the ponger, measures,
// prints `{"kind":...,"wait":...,"size":...,"echo_size":...,` and the round trips.
template <typename MakePair>
int run_stream_pingpong(const char* program, const StreamOptions& options, MakePair&& make_pair)
{
  SocketPair pair;
  try {
    pair = make_pair(options);
    if (options.wait == Wait::block) {
      stream_detail::set_timeout(pair.first);
      stream_detail::set_timeout(pair.second);
    }
  } catch (const Failure& failure) {
    report_failure(program, failure);
    return 1;
  }
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent = getpid();
  const pid_t ponger = fork();
  if (ponger < 0) {
    report_failure(program, Failure{"fork", errno});
    return 1;
  }
  const std::optional<int> pinger_cpu =
      options.pinned ? std::optional(options.runs.cpus.first) : std::nullopt;
  const std::optional<int> ponger_cpu =
      options.pinned ? std::optional(options.runs.cpus.second) : std::nullopt;
  if (ponger == 0) {
    // Dies with the pinger, so a killed benchmark leaves no spinning process behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent || !pin_to_cpu(ponger_cpu))
      _exit(1);
    close(pair.first);
    try {
      run_ponger(pair, options, options.runs.warmup + options.runs.iterations);
    } catch (const Failure& failure) {
      report_failure(program, failure);
      _exit(1);
    }
    _exit(0);
  }
  close(pair.second);
  std::vector<std::int64_t> rtts;
  try {
    if (!pin_to_cpu(pinger_cpu))
      throw Failure{"cannot pin to the CPU given with --cpu", errno};
    rtts = run_pinger(pair, options);
  } catch (const Failure& failure) {
    report_failure(program, failure);
    kill(ponger, SIGKILL);
    waitpid(ponger, nullptr, 0);
    return 1;
  }
  if (!reap_child(ponger, stream_detail::receive_timeout)) {
    std::fprintf(stderr, "%s: the ponger failed\n", program);
    return 1;
  }
  std::printf("{\"kind\":\"%s\",\"wait\":\"%s\",\"size\":%zu,\"echo_size\":%zu,",
              options.kind.c_str(), options.wait == Wait::spin ? "spin" : "block", options.size,
              options.echo_size);
  print_round_trips(std::move(rtts));
  return 0;
}

} // namespace bare
