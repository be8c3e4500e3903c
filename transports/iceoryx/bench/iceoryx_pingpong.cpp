// A peer beside netprof --shm: the same ping-pong through iceoryx (Debian's 2.0 packages,
// libiceoryx-posh-dev), between two processes, with no netprof code. Zero copy as iceoryx users
// write it: a side loans a chunk, writes its message in place and publishes it; the other takes
// it, answers, and releases it. transports/shm/bench/bench_shm.sh prints its one-way p50 beside
// netprof's.
//
//   iceoryx_pingpong [--iterations N] [--warmup N] [--cpu PINGER,PONGER] [--size BYTES]
//                    [--echo-size BYTES] [--stream SECONDS] [--queue-capacity N]
//
// --stream SECONDS: instead of the ping-pong, the pinger loans, stamps (8 bytes of sequence, as
// iceperf writes no payload per message) and publishes messages of --size as fast as it can for
// that long, and the ponger takes them from a queue of iceoryx's largest capacity, discarding the
// oldest as netprof's default does; the ponger prints {"messages_per_second": ...} on its clock
// from the first to the last message (scripts/bench/bench_iceoryx.sh compares netprof's stream).
//
// --queue-capacity: each ping-pong subscriber's queue, in chunks; 1 by default, one message in
// flight each way as in iceoryx's own iceperf; 256 (iceoryx's largest and default) is the queue
// netprof's iceoryx endpoint sets up at its default -q.
//
// --size defaults to 116 (netprof -s 64: 64 B payload + 52 B header), --echo-size to 68 (an
// echo is a header and two stamps), as in shm_ring_pingpong. RouDi (iox-roudi) must be running: the
// pinger forks the ponger and each registers its own runtime with it. Both sides busy-poll take(),
// pausing between empty polls like netprof's spin waits; each round trip is stamped with
// steady_clock on the pinger. Prints one JSON line. Exit status: 0 measured, 1 runtime error (no
// RouDi, no answer within seconds, a foreign echo), 2 bad command line.

#include "bare_common.hpp"
#include "iceoryx_registration.hpp"

#include <iceoryx_posh/iceoryx_posh_types.hpp>
#include <iceoryx_posh/popo/untyped_publisher.hpp>
#include <iceoryx_posh/popo/untyped_subscriber.hpp>
#include <iceoryx_posh/runtime/posh_runtime.hpp>
#include <iceoryx_versions.hpp>

#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

using namespace bare::iceoryx;
using Clock = std::chrono::steady_clock;
using iox::popo::UntypedPublisher;
using iox::popo::UntypedSubscriber;

// Registration and the connection both go through RouDi's discovery loop (every 100 ms).
constexpr auto connect_timeout = std::chrono::seconds(5);
// The ponger's is longer, so that when RouDi hangs the pinger is the one to say so.
constexpr unsigned pinger_register_seconds = 5; // as in on_signal's messages
constexpr unsigned ponger_register_seconds = 7;
// Generous for a round trip in shared memory, yet a lost message ends the run in seconds.
constexpr auto answer_timeout = std::chrono::seconds(2);
constexpr std::size_t min_size = sizeof(std::uint64_t); // the sequence number, echoed back
constexpr std::size_t max_size = std::size_t{1} << 20;  // RouDi's built-in mempools stop at 1 MiB

constexpr const char* usage =
    "usage: iceoryx_pingpong [--iterations N (=1000000)] [--warmup N (=100000)]\n"
    "       [--cpu PINGER,PONGER (=0,1)] [--size BYTES (=116)] [--echo-size BYTES (=68)]\n"
    "       [--stream SECONDS] [--queue-capacity N (=1)]\n"
    "RouDi (iox-roudi) must be running.\n";

struct Options : bare::RoundTrips {
  std::size_t size = 116;
  std::size_t echo_size = 68;
  std::uint64_t stream_seconds = 0; // 0: ping-pong
  std::uint64_t queue_capacity = 1; // the ping-pong subscribers'
};

constexpr std::uint64_t stream_end = ~std::uint64_t{0}; // the sequence that ends a stream

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size")
    options.size =
        bare::parse_number<std::size_t>(value, min_size, max_size, "--size needs 8..1048576");
  else if (flag == "--echo-size")
    options.echo_size =
        bare::parse_number<std::size_t>(value, min_size, max_size, "--echo-size needs 8..1048576");
  else if (flag == "--queue-capacity")
    options.queue_capacity = bare::parse_number<std::uint64_t>(
        value, 1, iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY,
        "--queue-capacity needs 1..256");
  else if (flag == "--stream")
    options.stream_seconds =
        bare::parse_number<std::uint64_t>(value, 1, 3600, "--stream needs 1..3600 seconds");
  else
    return bare::take_round_trip_option(flag, value, options);
  return true;
}

Options parse_options(int argc, char** argv)
{
  return bare::parse_command_line<Options>(argc, argv, take_option);
}

// Both processes name their services after the pinger's PID, so two runs never cross-talk.
iox::capro::ServiceDescription service(const std::string& instance, const char* event)
{
  using iox::capro::IdString_t;
  return {IdString_t("netprof_iceoryx_pingpong"),
          IdString_t(iox::cxx::TruncateToCapacity, instance),
          IdString_t(iox::cxx::TruncateToCapacity, event)};
}

// One message in flight each way (--queue-capacity 1, as iceoryx's own iceperf), or room for more.
iox::popo::SubscriberOptions subscriber_options(const Options& options)
{
  iox::popo::SubscriberOptions subscriber;
  subscriber.queueCapacity = options.queue_capacity;
  return subscriber;
}

void pin(int cpu)
{
  if (!bare::pin_to_cpu(cpu))
    throw RuntimeError{"cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno)};
}

void* loan(UntypedPublisher& publisher, std::size_t size)
{
  auto chunk = publisher.loan(static_cast<std::uint32_t>(size));
  if (chunk.has_error())
    throw RuntimeError{"cannot loan a chunk of " + std::to_string(size) +
                       " B (none that large left in RouDi's mempools?)"};
  return chunk.value();
}

// The next message, busy-polling. The clock is read only every 1024 empty polls, never per
// message, so the timeout counts from the first such read, a few microseconds in.
const void* take(UntypedSubscriber& subscriber, Clock::duration timeout, const char* timed_out)
{
  Clock::time_point give_up{};
  for (std::uint32_t polls = 1;; ++polls) {
    auto chunk = subscriber.take();
    if (!chunk.has_error())
      return chunk.value();
    if (chunk.get_error() != iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE)
      throw RuntimeError{"take: too many chunks held"};
    if ((polls & 1023) == 0) {
      if (stop_signal != 0)
        throw RuntimeError{"stopped by signal " + std::to_string(stop_signal)};
      const auto now = Clock::now();
      if (give_up == Clock::time_point{})
        give_up = now + timeout;
      else if (now >= give_up)
        throw RuntimeError{timed_out};
    }
    bare::relax();
  }
}

// The child: answers exactly `total` pings, each with the first echo_size bytes of the ping.
void run_ponger(const std::string& instance, const Options& options, std::uint64_t total)
{
  init_runtime("iceoryx_pingpong_" + instance + "_ponger", ponger_register_seconds);
  // After the runtime's own threads exist: they stay unpinned, out of the measured cores' way.
  // Before the ports: a ponger that cannot pin never looks connected to the pinger.
  pin(options.cpus.second);
  UntypedSubscriber subscriber(service(instance, "ping"), subscriber_options(options));
  UntypedPublisher publisher(service(instance, "pong"));
  const std::size_t copied = std::min(options.size, options.echo_size);
  for (std::uint64_t answered = 0; answered < total; ++answered) {
    const void* ping =
        take(subscriber, answered == 0 ? connect_timeout + answer_timeout : answer_timeout,
             "no ping from the pinger within seconds");
    void* echo = loan(publisher, options.echo_size);
    std::memcpy(echo, ping, copied);
    publisher.publish(echo);
    subscriber.release(ping); // after the answer: off the round trip
  }
}

// The ponger in a stream: counts what it takes until the end marker, then prints the rate.
void run_stream_receiver(const std::string& instance, const Options& options)
{
  init_runtime("iceoryx_pingpong_" + instance + "_ponger", ponger_register_seconds);
  pin(options.cpus.second);
  iox::popo::SubscriberOptions queue;
  queue.queueCapacity = iox::popo::SubscriberChunkQueueData_t::MAX_CAPACITY;
  UntypedSubscriber subscriber(service(instance, "ping"), queue);
  UntypedPublisher publisher(service(instance, "pong")); // the pinger waits for both ways
  std::uint64_t received = 0;
  Clock::time_point first{};
  Clock::time_point last{};
  for (;;) {
    const void* chunk =
        take(subscriber, received == 0 ? connect_timeout + answer_timeout : answer_timeout,
             "the stream stopped without its end");
    std::uint64_t sequence = 0;
    std::memcpy(&sequence, chunk, sizeof sequence);
    subscriber.release(chunk);
    if (sequence == stream_end)
      break;
    last = Clock::now();
    if (received++ == 0)
      first = last;
  }
  const double seconds = std::chrono::duration<double>(last - first).count();
  std::printf("{\"size\": %zu, \"messages\": %llu, \"messages_per_second\": %.1f}\n", options.size,
              static_cast<unsigned long long>(received),
              seconds > 0 ? static_cast<double>(received - 1) / seconds : 0.0);
}

// The pinger in a stream: loans, stamps and publishes for --stream seconds, then the end marker.
void run_stream_sender(UntypedPublisher& publisher, const Options& options)
{
  const auto end = Clock::now() + std::chrono::seconds(options.stream_seconds);
  for (std::uint64_t sequence = 0;; ++sequence) {
    if ((sequence & 1023) == 0 && (Clock::now() >= end || stop_signal != 0))
      break;
    auto chunk = publisher.loan(static_cast<std::uint32_t>(options.size));
    if (chunk.has_error())
      continue; // every chunk queued: the receiver frees one
    std::memcpy(chunk.value(), &sequence, sizeof sequence);
    publisher.publish(chunk.value());
  }
  void* chunk = loan(publisher, options.size);
  std::memcpy(chunk, &stream_end, sizeof stream_end);
  publisher.publish(chunk);
}

// The parent: waits until both directions are connected (a message published before that is
// dropped), then pings, waits for the echo, and keeps each measured round trip.
std::vector<std::int64_t> run_pinger(const std::string& instance, const Options& options)
{
  init_runtime("iceoryx_pingpong_" + instance + "_pinger", pinger_register_seconds);
  pin(options.cpus.first);
  UntypedPublisher publisher(service(instance, "ping"));
  UntypedSubscriber subscriber(service(instance, "pong"), subscriber_options(options));
  const auto give_up = Clock::now() + connect_timeout;
  while (!publisher.hasSubscribers() ||
         subscriber.getSubscriptionState() != iox::SubscribeState::SUBSCRIBED) {
    if (stop_signal != 0)
      throw RuntimeError{"stopped by signal " + std::to_string(stop_signal)};
    if (waitpid(ponger_pid, nullptr, WNOHANG) == ponger_pid) {
      ponger_pid = 0; // reaped: its PID may be reused, so it is signalled no more
      throw RuntimeError{"the ponger failed before connecting"};
    }
    if (Clock::now() >= give_up)
      throw RuntimeError{"the ponger did not connect within 5 s"};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  if (options.stream_seconds > 0) {
    run_stream_sender(publisher, options);
    return {};
  }
  std::vector<std::byte> ping(options.size, std::byte{0x5a});
  std::vector<std::int64_t> rtt(options.iterations);
  const std::uint64_t total = options.warmup + options.iterations;
  for (std::uint64_t sequence = 0; sequence < total; ++sequence) {
    const auto start = Clock::now();
    std::memcpy(ping.data(), &sequence, sizeof sequence);
    void* chunk = loan(publisher, options.size);
    std::memcpy(chunk, ping.data(), ping.size());
    publisher.publish(chunk);
    const void* echo = take(subscriber, answer_timeout, "no echo from the ponger within 2 s");
    const auto end = Clock::now();
    std::uint64_t echoed = 0;
    std::memcpy(&echoed, echo, sizeof echoed);
    subscriber.release(echo);
    if (echoed != sequence)
      throw RuntimeError{"the echo does not match the message sent"};
    if (sequence >= options.warmup)
      rtt[sequence - options.warmup] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  }
  return rtt;
}

// The forked child: the ponger, or under --stream-seconds the stream's receiver (which prints the
// rate). Never returns.
[[noreturn]] void run_child(const std::string& instance, const Options& options, pid_t parent)
{
  // Dies with the pinger, so a killed benchmark leaves no spinning process behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent)
    _exit(1);
  int status = 0;
  try {
    if (options.stream_seconds > 0)
      run_stream_receiver(instance, options);
    else
      run_ponger(instance, options, options.warmup + options.iterations);
  } catch (const RuntimeError& error) {
    // Stopped by the pinger, which says why itself: one line per failure.
    if (stop_signal == 0)
      std::fprintf(stderr, "iceoryx_pingpong (ponger): %s\n", error.what.c_str());
    status = 1;
  }
  // exit, not _exit: the runtime is a static whose destructor unregisters from RouDi.
  std::exit(status);
}

// RouDi checked, the ponger forked, the pinger run here; 0 when the figures were printed (or,
// streaming, when the ponger printed the rate).
int measure(const Options& options)
{
  try {
    check_roudi();
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "iceoryx_pingpong: %s\n", error.what.c_str());
    return 1;
  }
  for (const int signal : {SIGTERM, SIGINT, SIGALRM})
    std::signal(signal, on_signal);

  // No iceoryx state exists yet: each process makes its own runtime after the fork.
  const pid_t parent = getpid();
  const std::string instance = std::to_string(parent);
  std::fflush(stdout); // a buffered line must not be printed twice, once by each process
  const pid_t ponger = fork();
  if (ponger < 0) {
    std::fprintf(stderr, "iceoryx_pingpong: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (ponger == 0)
    run_child(instance, options, parent);
  ponger_pid = ponger;

  std::vector<std::int64_t> rtt;
  try {
    rtt = run_pinger(instance, options);
  } catch (const RuntimeError& error) {
    std::fprintf(stderr, "iceoryx_pingpong: %s\n", error.what.c_str());
    if (ponger_pid > 0) {
      kill(ponger, SIGTERM);
      bare::reap_child(ponger, answer_timeout);
    }
    return 1;
  }
  if (!bare::reap_child(ponger, answer_timeout)) {
    std::fprintf(stderr, "iceoryx_pingpong: the ponger failed\n");
    return 1;
  }
  if (options.stream_seconds > 0)
    return 0; // the ponger printed the rate
  bare::print_spaced_round_trips(std::move(rtt), options.size, options.echo_size,
                                 "\"iceoryx_version\": \"" ICEORYX_LATEST_RELEASE_VERSION "\", ");
  return 0;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, "iceoryx_pingpong", usage, parse_options, measure);
}
