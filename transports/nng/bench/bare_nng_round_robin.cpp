// The floor netprof's --fanout round-robin over NNG push/pull is compared against (RMR's
// experiment, NNG's half): a sender process with a push0 socket listening on loopback tcp, and
// receiver processes each dialling it with pull0, no netprof code. The sender pushes --count
// messages with blocking sends, push0 dealing each to the next receiver ready for one; then end
// markers, dealt the same way, until every receiver has reported (a receiver leaves at its
// first, so push0 deals the rest to the others). transports/nng/bench/bench_nng_round_robin.sh
// prints netprof's ratio to it.
//
//   bare_nng_round_robin [--receivers N] [--count N] [--size BYTES] [--warmup S]
//                        [--queue MESSAGES] [--cpu SENDER,RECEIVERS]
//
// Like for like with `netprof --nng tcp://... --nng-pattern pushpull --fanout round-robin
// --subscribers N --count C -s 128 -q 1000000`: --size 180 (netprof's 52 B header and the
// payload; NNG adds its 8 B frame header to both), --queue 5556 (the messages netprof asks of
// NNG for -q 1000000), --warmup 0.5 as --warmup-time, every receiver pinned to the second CPU as
// the script pins netprof's subscribers. netprof's publisher also sends 1,000 probes a second
// and reads their echoes: that, and all else netprof does per message, is what the ratio
// measures. The rate is the sender's: --count messages over the time from the first measured
// send to the last. Prints one JSON line. Exit status: 0 measured, 1 runtime error (or a
// message lost), 2 bad command line.

#include "bare_dealing.hpp"
#include "bare_nng_common.hpp"

#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>

#include <atomic>
#include <cinttypes>
#include <thread>
#include <vector>

namespace {

using namespace bare::nng;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_nng_round_robin";
constexpr const char* usage =
    "usage: bare_nng_round_robin [--receivers N (=5)] [--count N (=1000000)] [--size BYTES "
    "(=180)]\n"
    "       [--warmup S (=0.5)] [--queue MESSAGES (=5556)] [--cpu SENDER,RECEIVERS (none: "
    "unpinned)]\n";
using bare::data_tag;
using bare::end_tag;
using bare::gather_limit;

struct Options {
  std::size_t receivers = 5;
  std::uint64_t count = 1000000;
  std::size_t size = 180;
  double warmup = 0.5;
  int queue = 5556;
  std::optional<std::pair<int, int>> cpus;
};

bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (bare::take_dealing_option(flag, value, options.receivers, options.count))
    return true;
  if (flag == "--size")
    options.size =
        bare::parse_number<std::size_t>(value, 1, max_message_size, "--size must be 1 to 1048576");
  else if (flag == "--warmup")
    options.warmup = bare::parse_number<double>(value, 0.0, 3600.0, "--warmup must be 0 to 3600");
  else if (flag == "--queue")
    options.queue = bare::parse_number<int>(value, 1, 8192, "--queue must be 1 to 8192");
  else if (flag == "--cpu")
    options.cpus = bare::parse_cpu_pair(value, "--cpu takes SENDER,RECEIVERS, e.g. 0,1");
  else
    return false;
  return true;
}

void set_queues(nng_socket socket, int queue)
{
  nng_socket_set_int(socket, NNG_OPT_SENDBUF, queue);
  nng_socket_set_int(socket, NNG_OPT_RECVBUF, queue);
}

// A receiver process: counts the measured messages until its first end marker.
void run_receiver(const std::string& url, const Options& options, int results)
{
  bare::pin_or_throw(bare::second_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_pull0_open, max_message_size);
  set_queues(socket, options.queue);
  dial(socket, url);
  std::vector<std::byte> message(options.size);
  bare::Counted counted;
  for (;;) {
    std::size_t size = message.size();
    check(nng_recv(socket, message.data(), &size, 0), "receive");
    if (size >= 1 && message[0] == end_tag)
      break;
    if (size >= 1 && message[0] == data_tag)
      ++counted.received;
  }
  bare::report_counted(results, counted);
  // No nng_close: NNG 1.5's can wait for a pipe the sender is closing; _exit closes it.
}

std::atomic<std::size_t> connected{0};

void count_pipes(nng_pipe, nng_pipe_ev event, void*)
{
  if (event == NNG_PIPE_EV_ADD_POST)
    connected.fetch_add(1);
}

// The sender: waits for every receiver, deals the warm-up and the measured messages, then end
// markers until each receiver reported. Returns the measured sends' time.
Clock::duration deal(const std::string& url, const Options& options, bare::Reports& reports)
{
  bare::pin_or_throw(bare::first_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_push0_open, max_message_size);
  set_queues(socket, options.queue);
  check(nng_pipe_notify(socket, NNG_PIPE_EV_ADD_POST, count_pipes, nullptr), "nng_pipe_notify");
  check(nng_listen(socket, url.c_str(), nullptr, 0), "nng_listen");
  const auto dialled_by = Clock::now() + gather_limit;
  while (connected.load() < options.receivers) {
    if (Clock::now() >= dialled_by)
      throw Failure{"not every receiver dialled within 10 s", 0};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  const auto send = [&] { check(nng_send(socket, message.data(), message.size(), 0), "send"); };
  const auto measured = bare::deal_phases(message, options.warmup, options.count, reports, send);
  // Not closed: NNG 1.5's nng_close can wait for the pipes the receivers are closing as they
  // leave; the process's exit closes it.
  return measured;
}

int run(const Options& options)
{
  return bare::run_dealt(
      program, options.receivers, options.count, options.size,
      ",\"queue\":" + std::to_string(options.queue),
      [&](const std::string& url, int results) { run_receiver(url, options, results); },
      [&](const std::string& url, bare::Reports& reports) { return deal(url, options, reports); });
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, bare::command_line_parser<Options>(take_option),
                        run);
}
