#pragma once

// What the bare round-robin baselines whose medium deals the messages share (NNG's push0,
// ZeroMQ's PUSH; still no netprof code): a sender process and N receiver processes, each
// receiver writing what it counted into a pipe the sender reads; the sender deals end markers
// until every receiver has reported (a receiver leaves at its first, so the medium deals the
// rest to the others). The baseline supplies the two loops and the line it prints.

#include "bare_two_processes.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bare {

// What a receiver tells the sender through the pipe.
struct Counted {
  std::uint64_t received = 0;
};

// The first byte of each message: warm-up, measured data, or the end marker.
inline constexpr std::byte warmup_tag{0x57};
inline constexpr std::byte data_tag{0x42};
inline constexpr std::byte end_tag{0x45};

// How long the receivers may take to connect, and the end markers to reach them all.
inline constexpr auto gather_limit = std::chrono::seconds(10);

// A receiver's report, written once it has seen its first end marker.
inline void report_counted(int results, const Counted& counted)
{
  if (write(results, &counted, sizeof counted) != static_cast<ssize_t>(sizeof counted))
    throw std::runtime_error("write to the sender");
}

// What the sender reads of the receivers' reports as the end markers go out.
class Reports {
public:
  Reports(int results, std::size_t receivers) : m_results(results), m_counted(receivers) {}

  // Reads what the receivers wrote so far; true once every one has reported.
  bool all_in()
  {
    pollfd readable{m_results, POLLIN, 0};
    while (m_reports < m_counted.size() && poll(&readable, 1, 1) > 0) {
      if (read(m_results, &m_counted[m_reports], sizeof(Counted)) !=
          static_cast<ssize_t>(sizeof(Counted)))
        throw std::runtime_error("a receiver's report was cut short");
      ++m_reports;
    }
    return m_reports == m_counted.size();
  }
  // Sends end markers with `send_end` until every receiver reported, within gather_limit.
  template <typename SendEnd> void gather(SendEnd&& send_end)
  {
    const auto reported_by = Clock::now() + gather_limit;
    while (!all_in()) {
      if (Clock::now() >= reported_by)
        throw std::runtime_error("not every receiver reported within 10 s of the end");
      send_end();
    }
  }
  const std::vector<Counted>& counted() const noexcept { return m_counted; }

private:
  int m_results;
  std::vector<Counted> m_counted;
  std::size_t m_reports = 0;
};

// The sender's phases, each message `message` with its first byte the phase's tag, sent with
// send(): the warm-up for `warmup` seconds, `count` measured messages, then end markers until
// every receiver reported. Returns the measured sends' time.
template <typename Send>
Clock::duration deal_phases(std::vector<std::byte>& message, double warmup, std::uint64_t count,
                            Reports& reports, Send&& send)
{
  message[0] = warmup_tag;
  const auto warmed = Clock::now() + std::chrono::duration<double>(warmup);
  for (std::uint64_t sent = 0; warmup > 0; ++sent) {
    if (sent % 64 == 0 && Clock::now() >= warmed)
      break;
    send();
  }
  message[0] = data_tag;
  const auto start = Clock::now();
  for (std::uint64_t sent = 0; sent < count; ++sent)
    send();
  const auto measured = Clock::now() - start;
  message[0] = end_tag;
  reports.gather(send);
  return measured;
}

// Forks `receivers` processes running receive(endpoint, results_fd) (before the library starts
// a thread here; each dies with the sender), then runs deal(endpoint, reports) here, which
// returns its measured time; `endpoint` is tcp on a free loopback port. Prints one JSON line:
// the receivers, count and size, `settings` (the baseline's own members, each led by a comma),
// and what was dealt. Exit status 0 when every receiver exited 0 and together they counted
// `count`; 1 otherwise, said on stderr.
inline int run_dealt(const char* program, std::size_t receivers, std::uint64_t count,
                     std::size_t size, const std::string& settings,
                     const std::function<void(const std::string&, int)>& receive,
                     const std::function<Clock::duration(const std::string&, Reports&)>& deal)
{
  const std::optional<std::uint16_t> port = free_loopback_tcp_port();
  int results[2] = {-1, -1};
  if (!port || pipe(results) != 0) {
    std::fprintf(stderr, "%s: no free loopback port, or no pipe\n", program);
    return 1;
  }
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(*port);
  std::fflush(stdout);
  const pid_t parent = getpid();
  std::vector<pid_t> children;
  for (std::size_t i = 0; i < receivers; ++i) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // dies with the sender: nothing left behind
      if (getppid() != parent)
        _exit(1);
      close(results[0]);
      const bool done = run_reporting(program, "receiver", [&] { receive(endpoint, results[1]); });
      _exit(done ? 0 : 1);
    }
    children.push_back(child);
  }
  close(results[1]);
  Reports reports(results[0], receivers);
  Clock::duration measured{};
  const bool sent = run_reporting(program, "sender", [&] { measured = deal(endpoint, reports); });
  bool all_exited = true;
  for (const pid_t child : children)
    all_exited = reap_child(child, gather_limit) && all_exited;
  if (sent && !all_exited)
    std::fprintf(stderr, "%s: a receiver failed, or did not exit\n", program);
  if (!sent || !all_exited)
    return 1;
  std::uint64_t received = 0;
  std::uint64_t least = UINT64_MAX;
  std::uint64_t most = 0;
  for (const Counted& one : reports.counted()) {
    received += one.received;
    least = std::min(least, one.received);
    most = std::max(most, one.received);
  }
  if (received != count) {
    std::fprintf(stderr, "%s: the receivers counted %" PRIu64 " of %" PRIu64 " messages\n", program,
                 received, count);
    return 1;
  }
  const double seconds = std::chrono::duration<double>(measured).count();
  std::printf("{\"receivers\":%zu,\"count\":%" PRIu64 ",\"size\":%zu%s,\"received\":%" PRIu64
              ",\"least_share\":%" PRIu64 ",\"most_share\":%" PRIu64
              ",\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
              receivers, count, size, settings.c_str(), received, least, most, seconds,
              static_cast<double>(count) / seconds);
  return 0;
}

} // namespace bare
