// The floor netprof's --fanout round-robin over TCP is compared against (RMR's experiment: one
// sender dealing messages in turn to several receivers): a sender process with one loopback TCP
// connection per receiver process, writing each message to the next connection in turn with a
// blocking send, and receivers that count what arrives, with no netprof code
// (bench/bare_stream_throughput.hpp reads and writes).
// transports/tcp/bench/bench_tcp_round_robin.sh prints netprof's ratio to it.
//
//   bare_tcp_round_robin [--receivers N] [--count N] [--size BYTES] [--warmup S] [--buffer BYTES]
//                        [--cpu SENDER,RECEIVERS]
//
// Like for like with `netprof --tcp ... --fanout round-robin --subscribers N --count C -s 128`:
// --size 188 (netprof's 52 B header, the payload and its 8 B frame header), --buffer as -q
// (1000000 by default, both ends), --warmup 0.5 as --warmup-time, every receiver pinned to the
// second CPU as the script pins netprof's subscribers. netprof's publisher also sends 1,000
// probes a second and reads their echoes: that, and all else netprof does per message, is what
// the ratio measures. The rate is the sender's: --count messages over the time from the first
// measured send to the last, as netprof's publisher counts its measured phase. Prints one JSON
// line. Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_stream_throughput.hpp"
#include "bare_tcp_pair.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cinttypes>

namespace {

constexpr const char* program = "bare_tcp_round_robin";
constexpr const char* usage =
    "usage: bare_tcp_round_robin [--receivers N (=5)] [--count N (=1000000)]\n"
    "       [--size BYTES (=188)] [--warmup S (=0.5)] [--buffer BYTES (=1000000; 0: OS default)]\n"
    "       [--cpu SENDER,RECEIVERS (none: unpinned)]\n";

using Clock = std::chrono::steady_clock;

struct Options {
  bare::ThroughputOptions stream;
  std::size_t receivers = 5;
  std::uint64_t count = 1000000;
};

// What a receiver tells the sender through the pipe.
struct Counted {
  std::uint64_t received = 0;
  std::uint64_t sent = 0; // what the end said was dealt to it
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
};

Options parse_options(int argc, char** argv)
{
  Options options;
  options.stream.size = 188;
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (bare::take_dealing_option(flag, value, options.receivers, options.count))
      return;
    if (flag == "--seconds" || flag == "--wait" ||
        !bare::take_throughput_option(flag, value, options.stream))
      throw bare::UsageError{
          "unknown option (known: --receivers --count --size --warmup --buffer --cpu)"};
  });
  return options;
}

std::int64_t since_epoch(Clock::time_point when)
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
}

// A receiver process: counts what comes on `fd` until the end, then writes its Counted.
[[noreturn]] void run_receiver(int fd, int results, const Options& options)
{
  try {
    if (!bare::pin_to_cpu(bare::second_cpu(options.stream.cpus)))
      throw bare::Failure{"cannot pin to the CPU given with --cpu", errno};
    const auto result = bare::throughput_detail::receive_stream(fd, options.stream);
    const Counted counted{result.received, result.sent, since_epoch(result.first),
                          since_epoch(result.last)};
    if (write(results, &counted, sizeof counted) != static_cast<ssize_t>(sizeof counted))
      throw bare::Failure{"write to the sender", errno};
  } catch (const bare::Failure& failure) {
    bare::report_failure(program, failure);
    _exit(1);
  }
  _exit(0);
}

// The sender: deals warm-up messages for --warmup seconds, then --count measured ones, each to
// the next connection in turn; then each receiver's end with what was dealt to it. Returns the
// measured sends' time.
Clock::duration deal(const std::vector<int>& fds, const Options& options)
{
  using namespace bare::throughput_detail;
  std::vector<std::byte> message(options.stream.size, std::byte{0x5a});
  std::size_t turn = 0;
  const auto send_next = [&] {
    send_message(fds[turn], message.data(), message.size(), bare::Wait::block);
    turn = turn + 1 == fds.size() ? 0 : turn + 1;
  };
  message[0] = warmup_tag;
  const auto warmed = Clock::now() + seconds(options.stream.warmup);
  for (std::uint64_t sent = 0; options.stream.warmup > 0; ++sent) {
    if (sent % sends_per_check == 0 && Clock::now() >= warmed)
      break;
    send_next();
  }
  message[0] = data_tag;
  turn = 0;
  const auto start = Clock::now();
  for (std::uint64_t sent = 0; sent < options.count; ++sent)
    send_next();
  const auto measured = Clock::now() - start;
  message[0] = end_tag;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    const std::uint64_t dealt = options.count / fds.size() + (i < options.count % fds.size());
    std::memcpy(message.data() + count_offset, &dealt, sizeof dealt);
    send_message(fds[i], message.data(), message.size(), bare::Wait::block);
  }
  return measured;
}

// Forks a receiver for each pair (the child keeps only its own end and the write end of
// `results`, and never returns). Throws bare::Failure when a fork fails.
std::vector<pid_t> start_receivers(const std::vector<bare::SocketPair>& pairs, const int results[2],
                                   const Options& options)
{
  const pid_t parent = getpid();
  std::vector<pid_t> receivers;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const pid_t child = fork();
    if (child < 0)
      throw bare::Failure{"fork", errno};
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // dies with the sender: nothing left behind
      if (getppid() != parent)
        _exit(1);
      for (std::size_t j = 0; j < pairs.size(); ++j) {
        close(pairs[j].first);
        if (j != i)
          close(pairs[j].second);
      }
      close(results[0]);
      run_receiver(pairs[i].second, results[1], options);
    }
    receivers.push_back(child);
  }
  return receivers;
}

// The JSON line, once every receiver counted what was dealt to it; 1 (said why) otherwise.
int print_result(const Options& options, const std::vector<Counted>& counted,
                 Clock::duration measured)
{
  std::uint64_t total = 0;
  std::uint64_t least = UINT64_MAX;
  std::uint64_t most = 0;
  for (const Counted& one : counted) {
    if (one.received != one.sent) {
      bare::report_failure(program, bare::Failure{"a receiver counted another number than "
                                                  "was dealt to it",
                                                  0});
      return 1;
    }
    total += one.received;
    least = std::min(least, one.received);
    most = std::max(most, one.received);
  }
  const double seconds = std::chrono::duration<double>(measured).count();
  std::printf("{\"receivers\":%zu,\"count\":%" PRIu64 ",\"size\":%zu,\"buffer\":%zu,"
              "\"received\":%" PRIu64 ",\"least_share\":%" PRIu64 ",\"most_share\":%" PRIu64
              ",\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
              options.receivers, options.count, options.stream.size, options.stream.buffer, total,
              least, most, seconds, static_cast<double>(options.count) / seconds);
  return 0;
}

int run(const Options& options)
{
  using namespace bare::throughput_detail;
  std::vector<bare::SocketPair> pairs;
  int results[2] = {-1, -1};
  if (pipe(results) != 0) {
    bare::report_failure(program, bare::Failure{"pipe", errno});
    return 1;
  }
  try {
    for (std::size_t i = 0; i < options.receivers; ++i) {
      pairs.push_back(bare::tcp::connected_pair());
      for (const int fd : {pairs.back().first, pairs.back().second}) {
        size_buffers(fd, options.stream.buffer);
        set_timeouts(fd);
      }
    }
  } catch (const bare::Failure& failure) {
    bare::report_failure(program, failure);
    return 1;
  }
  std::fflush(stdout);
  std::vector<pid_t> receivers;
  try {
    receivers = start_receivers(pairs, results, options);
  } catch (const bare::Failure& failure) {
    bare::report_failure(program, failure);
    return 1;
  }
  close(results[1]);
  std::vector<int> fds;
  for (const bare::SocketPair& pair : pairs) {
    close(pair.second);
    fds.push_back(pair.first);
  }
  Clock::duration measured{};
  try {
    if (!bare::pin_to_cpu(bare::first_cpu(options.stream.cpus)))
      throw bare::Failure{"cannot pin to the CPU given with --cpu", errno};
    measured = deal(fds, options);
  } catch (const bare::Failure& failure) {
    bare::report_failure(program, failure);
    return 1;
  }
  std::vector<Counted> counted(receivers.size());
  const auto wanted = static_cast<ssize_t>(counted.size() * sizeof(Counted));
  ssize_t got = 0;
  for (ssize_t n = 1; got < wanted && n > 0; got += n)
    n = read(results[0], reinterpret_cast<char*>(counted.data()) + got,
             static_cast<std::size_t>(wanted - got));
  bool all_exited = true;
  for (const pid_t child : receivers)
    all_exited = bare::reap_child(child, io_timeout) && all_exited;
  if (got != wanted || !all_exited) {
    bare::report_failure(program, bare::Failure{"a receiver failed", 0});
    return 1;
  }
  return print_result(options, counted, measured);
}

} // namespace

int main(int argc, char** argv)
{
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const bare::UsageError& error) {
    return bare::usage_exit_status(error, program, usage);
  }
  return run(options);
}
