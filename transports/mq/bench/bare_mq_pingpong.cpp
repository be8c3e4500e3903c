// The floor netprof's mq ping-pong is compared against: the leanest honest round trip through
// POSIX message queues between two processes, with no netprof code. Two queues, one each way,
// as `netprof --mq --mode ping-pong` has (the subscriber's queue for data, the publisher's for
// echoes); the pinger sends --size bytes and the ponger answers with --echo-size bytes. The
// difference from netprof is what its core and transport add on top of the kernel, printed as
// a ratio by transports/mq/bench/bench_mq.sh.
//
//   bare_mq_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                    [--wait block|spin] [--cpu PINGER,PONGER]
//
// --size defaults to 116 (netprof -s 64: 64 B payload + 52 B header), --echo-size to 76 (an
// echo is a header and two 8-byte stamps, plus the 8-byte frame naming its sender). block:
// mq_timedreceive with a 10 s deadline; spin: mq_receive on a non-blocking descriptor in a loop.
// The queues are unlinked as soon as both ends have them open, so a killed run leaves nothing
// behind. Prints one JSON line. Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_common.hpp"

#include <fcntl.h>
#include <mqueue.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

namespace {

using bare::parse_number;
using bare::UsageError;
using Clock = std::chrono::steady_clock;

constexpr auto receive_timeout = std::chrono::seconds(10);
constexpr std::size_t sequence_bytes = sizeof(std::uint64_t);
constexpr std::size_t largest = 8192; // the default fs.mqueue.msgsize_max
constexpr long depth = 10;            // the default fs.mqueue.msg_max, and netprof's depth

enum class Wait { block, spin };

struct Options {
  std::size_t size = 116;
  std::size_t echo_size = 76;
  bare::RoundTrips runs{100'000, 10'000, {0, 1}};
  bool pinned = false;
  Wait wait = Wait::block;
};

constexpr const char* usage =
    "usage: bare_mq_pingpong [--size BYTES (=116)] [--echo-size BYTES (=76)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--wait block|spin (=block)]\n"
    "       [--cpu PINGER,PONGER]\n";

struct RuntimeError {
  const char* what;
  int error; // errno, or 0
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size" || flag == "--echo-size") {
    (flag == "--size" ? options.size : options.echo_size) = parse_number<std::size_t>(
        value, sequence_bytes, largest, "--size and --echo-size must be 8 to 8192 bytes");
  } else if (flag == "--wait") {
    if (value != "block" && value != "spin")
      throw UsageError{"--wait must be block or spin"};
    options.wait = value == "spin" ? Wait::spin : Wait::block;
  } else if (bare::take_round_trip_option(flag, value, options.runs)) {
    options.pinned = options.pinned || flag == "--cpu";
  } else {
    return false;
  }
  return true;
}

Options parse_options(int argc, char** argv)
{
  return bare::parse_command_line<Options>(argc, argv, take_option);
}

// A queue of its own name, opened and at once unlinked: only the descriptor names it now.
mqd_t open_private_queue(const char* which, std::size_t message_size, int flags)
{
  const std::string name = "/bare-mq-" + std::to_string(getpid()) + "-" + which;
  mq_attr attributes{};
  attributes.mq_maxmsg = depth;
  attributes.mq_msgsize = static_cast<long>(message_size);
  const mqd_t queue = mq_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | flags, 0600, &attributes);
  if (queue == static_cast<mqd_t>(-1))
    throw RuntimeError{"mq_open", errno};
  mq_unlink(name.c_str());
  return queue;
}

timespec realtime_deadline()
{
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += std::chrono::duration_cast<std::chrono::seconds>(receive_timeout).count();
  return deadline;
}

// One message into `buffer` (the queue's message size); its length.
std::size_t receive(mqd_t queue, std::vector<char>& buffer, Wait wait)
{
  if (wait == Wait::block) {
    const timespec deadline = realtime_deadline();
    for (;;) {
      const ssize_t got = mq_timedreceive(queue, buffer.data(), buffer.size(), nullptr, &deadline);
      if (got >= 0)
        return static_cast<std::size_t>(got);
      if (errno != EINTR)
        throw RuntimeError{errno == ETIMEDOUT ? "timed out waiting for a message"
                                              : "mq_timedreceive",
                           errno == ETIMEDOUT ? 0 : errno};
    }
  }
  const auto give_up = Clock::now() + receive_timeout;
  for (std::uint32_t spins = 1;; ++spins) {
    const ssize_t got = mq_receive(queue, buffer.data(), buffer.size(), nullptr);
    if (got >= 0)
      return static_cast<std::size_t>(got);
    if (errno != EAGAIN && errno != EINTR)
      throw RuntimeError{"mq_receive", errno};
    // The clock is read only now and then: the spin loop should cost one syscall a turn.
    if ((spins & 1023) == 0 && Clock::now() >= give_up)
      throw RuntimeError{"timed out waiting for a message", 0};
  }
}

void send(mqd_t queue, const std::vector<char>& message, std::size_t size)
{
  while (mq_send(queue, message.data(), size, 0) != 0)
    if (errno != EINTR)
      throw RuntimeError{"mq_send", errno};
}

void pin(std::optional<int> cpu)
{
  if (!bare::pin_to_cpu(cpu))
    throw RuntimeError{"cannot pin to the CPU given with --cpu", errno};
}

// The two queues, and how both ends wait on them.
struct Queues {
  mqd_t pings = -1; // pinger to ponger
  mqd_t pongs = -1; // ponger to pinger
  Wait wait = Wait::block;
};

// The child: answers exactly `total` messages with --echo-size bytes carrying their sequence.
void run_ponger(const Queues& queues, const Options& options, std::optional<int> cpu)
{
  pin(cpu);
  std::vector<char> buffer(options.size);
  std::vector<char> echo(options.echo_size, 0x33);
  const std::uint64_t total = options.runs.warmup + options.runs.iterations;
  for (std::uint64_t i = 0; i < total; ++i) {
    receive(queues.pings, buffer, queues.wait);
    std::memcpy(echo.data(), buffer.data(), sequence_bytes);
    send(queues.pongs, echo, echo.size());
  }
}

// The pinger's buffers: the message it stamps with each sequence, and where the echo lands.
struct Exchange {
  std::vector<char> message;
  std::vector<char> echo;

  // One round trip of message `sequence`, in nanoseconds; throws unless its own echo came back.
  std::int64_t time(const Queues& queues, std::uint64_t sequence)
  {
    std::memcpy(message.data(), &sequence, sequence_bytes);
    const auto sent_at = Clock::now();
    send(queues.pings, message, message.size());
    const std::size_t got = receive(queues.pongs, echo, queues.wait);
    const auto elapsed = Clock::now() - sent_at;
    std::uint64_t echoed = 0;
    std::memcpy(&echoed, echo.data(), sequence_bytes);
    if (got != echo.size() || echoed != sequence)
      throw RuntimeError{"the echo does not match the message sent", 0};
    return std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  }
};

std::vector<std::int64_t> run_pinger(const Queues& queues, const Options& options,
                                     std::optional<int> cpu)
{
  pin(cpu);
  Exchange exchange{std::vector<char>(options.size, 0x5a), std::vector<char>(options.echo_size)};
  for (std::uint64_t sequence = 0; sequence < options.runs.warmup; ++sequence)
    exchange.time(queues, sequence);
  std::vector<std::int64_t> rtts(options.runs.iterations);
  for (std::uint64_t i = 0; i < options.runs.iterations; ++i)
    rtts[i] = exchange.time(queues, options.runs.warmup + i);
  return rtts;
}

int report(const RuntimeError& error)
{
  if (error.error != 0)
    std::fprintf(stderr, "bare_mq_pingpong: %s: %s\n", error.what, std::strerror(error.error));
  else
    std::fprintf(stderr, "bare_mq_pingpong: %s\n", error.what);
  return 1;
}

// Opens the queues, forks the ponger, measures; the exit status.
int measure(const Options& options)
{
  const int flags = options.wait == Wait::spin ? O_NONBLOCK : 0;
  const auto cpu = [&](int which) { return options.pinned ? std::optional(which) : std::nullopt; };
  Queues queues;
  queues.wait = options.wait;
  try {
    // Both exist before the fork, so neither end can send before the other can receive.
    queues.pings = open_private_queue("ping", options.size, flags);
    queues.pongs = open_private_queue("pong", options.echo_size, flags);
  } catch (const RuntimeError& error) {
    return report(error);
  }
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t parent = getpid();
  const pid_t ponger = fork();
  if (ponger < 0)
    return report(RuntimeError{"fork", errno});
  if (ponger == 0) {
    // Dies with the pinger, so a killed benchmark leaves no spinning process behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    try {
      if (getppid() == parent)
        run_ponger(queues, options, cpu(options.runs.cpus.second));
    } catch (const RuntimeError& error) {
      _exit(report(error));
    }
    _exit(getppid() == parent ? 0 : 1);
  }
  std::vector<std::int64_t> rtts;
  try {
    rtts = run_pinger(queues, options, cpu(options.runs.cpus.first));
  } catch (const RuntimeError& error) {
    kill(ponger, SIGKILL);
    waitpid(ponger, nullptr, 0);
    return report(error);
  }
  if (!bare::reap_child(ponger, receive_timeout)) {
    std::fprintf(stderr, "bare_mq_pingpong: the ponger failed\n");
    return 1;
  }
  std::printf("{\"wait\":\"%s\",\"size\":%zu,\"echo_size\":%zu,",
              options.wait == Wait::spin ? "spin" : "block", options.size, options.echo_size);
  bare::print_round_trips(std::move(rtts));
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  try {
    return measure(parse_options(argc, argv));
  } catch (const UsageError& error) {
    return bare::usage_exit_status(error, "bare_mq_pingpong", usage);
  }
}
