// The floor netprof's NNG push/pull stream is compared against: two processes, a push0 socket
// listening in the sender and a pull0 dialling from the receiver, the sender pushing messages as
// fast as NNG takes them for --seconds, no netprof code. With --size 180 the messages are
// netprof's for `-s 128` (its 52-byte header + 128 B); transports/nng/bench/bench_nng.sh prints
// netprof's ratio to it.
//
//   bare_nng_stream [--size BYTES] [--seconds S] [--transport tcp|ipc] [--cpu SENDER,RECEIVER]
//
// push0 back-pressures instead of dropping, so nothing is lost; the receiver counts messages on
// its own clock from the first to the last, as netprof does, and prints one JSON line. Exit
// status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_nng_common.hpp"

#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace bare;
using namespace bare::nng;
using Clock = std::chrono::steady_clock;

constexpr const char* program = "bare_nng_stream";
constexpr const char* usage =
    "usage: bare_nng_stream [--size BYTES (=180)] [--seconds S (=2)] [--transport tcp|ipc "
    "(=tcp)]\n"
    "       [--cpu SENDER,RECEIVER (none: unpinned)]\n";
constexpr nng_duration timeout_ms = 10000;
constexpr std::byte data_tag{0x42};
constexpr std::byte end_tag{0x45};
constexpr std::size_t max_size = std::size_t{1} << 20;
// What netprof asks of NNG for -q 1,000,000 and 180 B messages: its most, 8192.
constexpr int queue_messages = 8192;

struct Options {
  std::size_t size = 180;
  std::uint64_t seconds = 2;
  bool ipc = false;
  std::optional<std::pair<int, int>> cpus;
};

Options parse_options(int argc, char** argv)
{
  Options options;
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (flag == "--size") {
      options.size = parse_number<std::size_t>(value, 1, max_size, "--size must be 1 to 1048576");
    } else if (flag == "--seconds") {
      options.seconds = parse_number<std::uint64_t>(value, 1, 3600, "--seconds must be 1 to 3600");
    } else if (flag == "--transport") {
      if (value != "tcp" && value != "ipc")
        throw UsageError{"--transport must be tcp or ipc"};
      options.ipc = value == "ipc";
    } else if (flag == "--cpu") {
      options.cpus = bare::parse_cpu_pair(value, "--cpu takes SENDER,RECEIVER, e.g. 0,1");
    } else {
      throw UsageError{"unknown option (known: --size --seconds --transport --cpu)"};
    }
  });
  return options;
}

nng_socket open_socket(int (*open)(nng_socket*))
{
  nng_socket socket = NNG_SOCKET_INITIALIZER;
  check(open(&socket), "open");
  check(nng_socket_set_ms(socket, NNG_OPT_RECVTIMEO, timeout_ms), "NNG_OPT_RECVTIMEO");
  check(nng_socket_set_ms(socket, NNG_OPT_SENDTIMEO, timeout_ms), "NNG_OPT_SENDTIMEO");
  check(nng_socket_set_size(socket, NNG_OPT_RECVMAXSZ, max_size), "NNG_OPT_RECVMAXSZ");
  nng_socket_set_int(socket, NNG_OPT_SENDBUF, queue_messages); // what the protocol lacks
  nng_socket_set_int(socket, NNG_OPT_RECVBUF, queue_messages); // it refuses
  return socket;
}

// The child: dials, receives until the end marker, prints the rate on its own clock.
void run_receiver(const std::string& url, const Options& options)
{
  pin(options.cpus ? std::optional<int>(options.cpus->second) : std::nullopt);
  const nng_socket socket = open_socket(nng_pull0_open);
  check(nng_socket_set_ms(socket, NNG_OPT_RECONNMINT, 10), "NNG_OPT_RECONNMINT");
  check(nng_dial(socket, url.c_str(), nullptr, NNG_FLAG_NONBLOCK), "nng_dial");
  std::vector<std::byte> message(options.size);
  std::uint64_t received = 0;
  Clock::time_point first{};
  Clock::time_point last{};
  for (;;) {
    std::size_t size = message.size();
    check(nng_recv(socket, message.data(), &size, 0), "receive");
    if (size >= 1 && message[0] == end_tag)
      break;
    last = Clock::now();
    if (received++ == 0)
      first = last;
  }
  nng_close(socket);
  const double seconds = std::chrono::duration<double>(last - first).count();
  std::printf("{\"pattern\":\"push0-pull0\",\"transport\":\"%s\",\"size\":%zu,\"received\":%llu,"
              "\"seconds\":%.6f,\"messages_per_second\":%.1f}\n",
              options.ipc ? "ipc" : "tcp", options.size, static_cast<unsigned long long>(received),
              seconds,
              received > 1 && seconds > 0 ? static_cast<double>(received - 1) / seconds : 0.0);
}

// The parent: listens, pushes for --seconds (blocking sends: push0 waits for room), then the
// end marker.
// True when the receiver exited cleanly.
bool run_sender(const std::string& url, const Options& options, pid_t child)
{
  pin(options.cpus ? std::optional<int>(options.cpus->first) : std::nullopt);
  const nng_socket socket = open_socket(nng_push0_open);
  check(nng_listen(socket, url.c_str(), nullptr, 0), "nng_listen");
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  message[0] = data_tag;
  const auto end = Clock::now() + std::chrono::seconds(options.seconds);
  while (Clock::now() < end)
    check(nng_send(socket, message.data(), message.size(), 0), "send");
  message[0] = end_tag;
  check(nng_send(socket, message.data(), message.size(), 0), "send the end");
  // Closing at once would drop what is still queued: the socket stays open until the receiver,
  // which leaves after the end marker, has exited.
  const bool receiver_ok = bare::reap_child(child, std::chrono::seconds(15));
  nng_close(socket);
  return receiver_ok;
}

// Forks the receiver, pushes to it from here; 0 when the receiver printed its rate.
int measure(const Options& options)
{
  std::string url;
  try {
    url = bare::nng::pick_url(options.ipc, "bare-nng-stream");
  } catch (const Failure& failure) {
    return bare::nng::report_failure(program, "setup", failure, "failed");
  }
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    try {
      run_receiver(url, options);
    } catch (const Failure& failure) {
      _exit(bare::nng::report_failure(program, "receiver", failure, "failed"));
    }
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  try {
    status = run_sender(url, options, child) ? 0 : 1;
  } catch (const Failure& failure) {
    kill(child, SIGKILL);
    bare::reap_child(child, std::chrono::seconds(5));
    status = bare::nng::report_failure(program, "sender", failure, "failed");
  }
  if (options.ipc)
    unlink(url.c_str() + std::strlen("ipc://"));
  return status;
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, parse_options, measure);
}
