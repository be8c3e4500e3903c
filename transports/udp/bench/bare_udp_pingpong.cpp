// The floor netprof's UDP ping-pong is compared against: the leanest honest round trip on
// loopback between two processes, with no netprof code. Anything netprof adds on top of this
// (headers, batching, polling, bookkeeping) shows up as the ratio printed by
// transports/udp/bench/bench_udp_pingpong.sh.
//
//   bare_udp_pingpong [--size BYTES] [--iterations N] [--warmup N] [--wait block|spin]
//                     [--cpu PINGER,PONGER] [--pace-hz HZ]
//
// --pace-hz: one round trip every 1/HZ s, the pinger asleep in between (clock_nanosleep to an
// absolute due time, timer slack 1 ns), as a paced probe finds the path: the baseline of
// netprof's paced figures (scripts/bench/paced_vs_pingpong.sh).
//
// Prints one JSON line on stdout. Exit status: 0 measured, 1 runtime error (socket error,
// timeout, lost or corrupt echo), 2 bad command line.

#include "bare_common.hpp"

#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

using bare::parse_number;
using bare::UsageError;

using Clock = std::chrono::steady_clock;

// Loopback does not lose datagrams, so this only guards against a hang. It is long because on a
// saturated machine a pinned process can be kept off its CPU for over a second.
constexpr auto receive_timeout = std::chrono::seconds(10);
// Largest UDP payload over IPv4: 65535 minus the IP and UDP headers.
constexpr std::size_t max_datagram = 65507;
// The pinger stamps a sequence number here so a stale or foreign echo is caught, not timed.
constexpr std::size_t sequence_bytes = sizeof(std::uint64_t);

enum class Wait { block, spin };

struct Options {
  std::size_t size = 64;
  std::uint64_t iterations = 100000;
  std::uint64_t warmup = 10000;
  Wait wait = Wait::block;
  std::optional<int> pinger_cpu;
  std::optional<int> ponger_cpu;
  std::uint64_t pace_hz = 0; // 0: back to back
};

constexpr const char* usage =
    "usage: bare_udp_pingpong [--size BYTES (=64)] [--iterations N (=100000)]\n"
    "       [--warmup N (=10000)] [--wait block|spin (=block)] [--cpu PINGER,PONGER]\n"
    "       [--pace-hz HZ (=0: back to back)]\n";

struct RuntimeError {
  const char* what;
  int error; // errno, or 0 when the failure is not a system call's
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size") {
    options.size = parse_number<std::size_t>(value, sequence_bytes, max_datagram,
                                             "--size must be 8 to 65507 bytes");
  } else if (flag == "--wait") {
    if (value == "block")
      options.wait = Wait::block;
    else if (value == "spin")
      options.wait = Wait::spin;
    else
      throw UsageError{"--wait must be block or spin"};
  } else if (flag == "--cpu") {
    std::tie(options.pinger_cpu, options.ponger_cpu) =
        bare::parse_cpu_pair(value, "--cpu takes PINGER,PONGER, e.g. 0,1");
  } else if (flag == "--pace-hz") {
    options.pace_hz =
        parse_number<std::uint64_t>(value, 1, 1'000'000, "--pace-hz must be 1 to 1000000");
  } else {
    return bare::take_count_option(flag, value, options.iterations, options.warmup);
  }
  return true;
}

Options parse_options(int argc, char** argv)
{
  return bare::parse_command_line<Options>(argc, argv, take_option);
}

void pin_to_cpu(std::optional<int> cpu)
{
  if (!bare::pin_to_cpu(cpu))
    throw RuntimeError{"cannot pin to the CPU given with --cpu", errno};
}

int open_loopback_socket()
{
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw RuntimeError{"socket", errno};
  sockaddr_in own{};
  own.sin_family = AF_INET;
  own.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  own.sin_port = 0; // ephemeral: never collides with another run
  if (bind(fd, reinterpret_cast<const sockaddr*>(&own), sizeof own) != 0)
    throw RuntimeError{"bind", errno};
  return fd;
}

sockaddr_in local_address(int fd)
{
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw RuntimeError{"getsockname", errno};
  return address;
}

// Connected, so each send skips the per-datagram route lookup and each receive drops
// datagrams from anyone else: the cheapest kernel path there is.
void connect_to(int fd, const sockaddr_in& peer)
{
  if (connect(fd, reinterpret_cast<const sockaddr*>(&peer), sizeof peer) != 0)
    throw RuntimeError{"connect", errno};
}

void set_receive_timeout(int fd)
{
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(receive_timeout);
  const timeval timeout{static_cast<time_t>(seconds.count()), 0};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0)
    throw RuntimeError{"setsockopt SO_RCVTIMEO", errno};
}

// One datagram into `buffer`; its length, or throws on error or after receive_timeout.
std::size_t receive(int fd, std::vector<std::byte>& buffer, Wait wait)
{
  if (wait == Wait::block) {
    for (;;) {
      const ssize_t got = recv(fd, buffer.data(), buffer.size(), 0);
      if (got >= 0)
        return static_cast<std::size_t>(got);
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        throw RuntimeError{"timed out waiting for a datagram", 0};
      if (errno != EINTR)
        throw RuntimeError{"recv", errno};
    }
  }
  const auto deadline = Clock::now() + receive_timeout;
  for (std::uint32_t spins = 1;; ++spins) {
    const ssize_t got = recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (got >= 0)
      return static_cast<std::size_t>(got);
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      throw RuntimeError{"recv", errno};
    // The clock is read only now and then: the spin loop should cost one syscall a turn.
    if ((spins & 1023) == 0 && Clock::now() >= deadline)
      throw RuntimeError{"timed out waiting for a datagram", 0};
  }
}

void send_all(int fd, const std::vector<std::byte>& datagram, std::size_t size)
{
  for (;;) {
    const ssize_t sent = send(fd, datagram.data(), size, 0);
    if (sent == static_cast<ssize_t>(size))
      return;
    if (sent < 0 && errno == EINTR)
      continue;
    throw RuntimeError{"send", sent < 0 ? errno : 0};
  }
}

// The child: echoes exactly `total` datagrams, byte for byte, then exits.
void run_ponger(int fd, const Options& options, std::uint64_t total)
{
  pin_to_cpu(options.ponger_cpu);
  std::vector<std::byte> buffer(max_datagram + 1);
  for (std::uint64_t i = 0; i < total; ++i) {
    const std::size_t got = receive(fd, buffer, options.wait);
    send_all(fd, buffer, got);
  }
}

// The parent: sends, waits for the echo, and keeps each measured round trip.
std::vector<std::int64_t> run_pinger(int fd, const Options& options)
{
  pin_to_cpu(options.pinger_cpu);
  std::vector<std::byte> datagram(options.size, std::byte{0x5a});
  // One byte more than sent, so a longer echo is seen as an error rather than truncated.
  std::vector<std::byte> echo(options.size + 1);
  std::vector<std::int64_t> rtts;
  rtts.reserve(options.iterations);

  const std::uint64_t total = options.warmup + options.iterations;
  if (options.pace_hz > 0)
    prctl(PR_SET_TIMERSLACK, 1UL); // as netprof's pacer: wake at the due time, not 50 us on
  const auto period =
      std::chrono::nanoseconds(1'000'000'000 / std::max<std::uint64_t>(options.pace_hz, 1));
  timespec due{};
  clock_gettime(CLOCK_MONOTONIC, &due);
  for (std::uint64_t sequence = 0; sequence < total; ++sequence) {
    if (options.pace_hz > 0) {
      due.tv_nsec += static_cast<long>(period.count());
      due.tv_sec += due.tv_nsec / 1'000'000'000;
      due.tv_nsec %= 1'000'000'000;
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nullptr) == EINTR) {
      }
    }
    std::memcpy(datagram.data(), &sequence, sequence_bytes);
    const auto sent_at = Clock::now();
    send_all(fd, datagram, datagram.size());
    const std::size_t got = receive(fd, echo, options.wait);
    const auto received_at = Clock::now();
    std::uint64_t echoed = 0;
    std::memcpy(&echoed, echo.data(), sequence_bytes);
    if (got != options.size || echoed != sequence)
      throw RuntimeError{"the echo does not match the datagram sent", 0};
    if (sequence >= options.warmup)
      rtts.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(received_at - sent_at).count());
  }
  return rtts;
}

void print_result(const Options& options, std::vector<std::int64_t> rtts)
{
  std::printf("{\"wait\":\"%s\",\"size\":%zu,\"pace_hz\":%llu,",
              options.wait == Wait::spin ? "spin" : "block", options.size,
              static_cast<unsigned long long>(options.pace_hz));
  bare::print_round_trips(std::move(rtts));
}

void report(const RuntimeError& error)
{
  if (error.error != 0)
    std::fprintf(stderr, "bare_udp_pingpong: %s: %s\n", error.what, std::strerror(error.error));
  else
    std::fprintf(stderr, "bare_udp_pingpong: %s\n", error.what);
}

// The ponger's status once it is done; kills it if it is not done within the timeout.
bool reap_ponger(pid_t ponger)
{
  return bare::reap_child(ponger, receive_timeout);
}

// The two connected loopback sockets, made before the fork so that neither end can send
// before the other is listening.
std::pair<int, int> open_socket_pair(const Options& options)
{
  const int pinger_fd = open_loopback_socket();
  const int ponger_fd = open_loopback_socket();
  connect_to(pinger_fd, local_address(ponger_fd));
  connect_to(ponger_fd, local_address(pinger_fd));
  if (options.wait == Wait::block) {
    set_receive_timeout(pinger_fd);
    set_receive_timeout(ponger_fd);
  }
  return {pinger_fd, ponger_fd};
}

// The forked ponger: answers every ping, then exits. Never returns.
[[noreturn]] void run_child(int pinger_fd, int ponger_fd, const Options& options, pid_t parent)
{
  // Dies with the pinger, so a killed benchmark leaves no spinning process behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(1);
  close(pinger_fd);
  try {
    run_ponger(ponger_fd, options, options.warmup + options.iterations);
  } catch (const RuntimeError& error) {
    report(error);
    _exit(1);
  }
  _exit(0);
}

// Forks the ponger, pings it from here and prints the round trips; 0 when measured.
int measure(const Options& options)
{
  std::pair<int, int> fds;
  try {
    fds = open_socket_pair(options);
  } catch (const RuntimeError& error) {
    report(error);
    return 1;
  }
  const auto [pinger_fd, ponger_fd] = fds;

  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent = getpid();
  const pid_t ponger = fork();
  if (ponger < 0) {
    report(RuntimeError{"fork", errno});
    return 1;
  }
  if (ponger == 0)
    run_child(pinger_fd, ponger_fd, options, parent);

  close(ponger_fd);
  std::vector<std::int64_t> rtts;
  try {
    rtts = run_pinger(pinger_fd, options);
  } catch (const RuntimeError& error) {
    report(error);
    kill(ponger, SIGKILL);
    waitpid(ponger, nullptr, 0);
    return 1;
  }
  if (!reap_ponger(ponger)) {
    std::fprintf(stderr, "bare_udp_pingpong: the ponger failed\n");
    return 1;
  }
  print_result(options, std::move(rtts));
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, "bare_udp_pingpong", usage, parse_options, measure);
}
