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
#include <utility>

namespace {

using namespace bare;
using namespace bare::nng;

constexpr const char* program = "bare_nng_stream";
constexpr const char* usage =
    "usage: bare_nng_stream [--size BYTES (=180)] [--seconds S (=2)] [--transport tcp|ipc "
    "(=tcp)]\n"
    "       [--cpu SENDER,RECEIVER (none: unpinned)]\n";
constexpr std::byte data_tag{0x42};
constexpr std::byte end_tag{0x45};
// What netprof asks of NNG for -q 1,000,000 and 180 B messages: its most, 8192.
constexpr int queue_messages = 8192;

struct Options {
  std::size_t size = 180;
  std::uint64_t seconds = 2;
  bool ipc = false;
  std::optional<std::pair<int, int>> cpus;
};

// Takes one of this program's flags into `options`; false for a flag it does not know.
bool take_option(std::string_view flag, std::string_view value, Options& options)
{
  if (flag == "--size")
    options.size =
        parse_number<std::size_t>(value, 1, max_message_size, "--size must be 1 to 1048576");
  else if (flag == "--seconds")
    options.seconds = parse_number<std::uint64_t>(value, 1, 3600, "--seconds must be 1 to 3600");
  else if (flag == "--cpu")
    options.cpus = bare::parse_cpu_pair(value, "--cpu takes SENDER,RECEIVER, e.g. 0,1");
  else
    return bare::take_transport_option(flag, value, options.ipc);
  return true;
}

// push0's queue and pull0's, where the protocol has one (it refuses the option otherwise).
void set_queues(nng_socket socket)
{
  nng_socket_set_int(socket, NNG_OPT_SENDBUF, queue_messages);
  nng_socket_set_int(socket, NNG_OPT_RECVBUF, queue_messages);
}

// The child: dials, receives until the end marker, prints the rate on its own clock.
void run_receiver(const std::string& url, const Options& options)
{
  bare::pin_or_throw(bare::second_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_pull0_open, max_message_size);
  set_queues(socket);
  dial(socket, url);
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

// Closes the sender's socket when it goes: closing at once would drop what is still queued, so
// the socket stays open until the receiver, which leaves after the end marker, has exited.
class OpenSocket {
public:
  OpenSocket() = default;
  explicit OpenSocket(nng_socket socket) : m_socket(socket) {}
  OpenSocket(OpenSocket&& other) noexcept : m_socket(std::exchange(other.m_socket, closed)) {}
  OpenSocket& operator=(OpenSocket&& other) noexcept
  {
    std::swap(m_socket, other.m_socket);
    return *this;
  }
  ~OpenSocket()
  {
    if (nng_socket_id(m_socket) > 0)
      nng_close(m_socket);
  }

private:
  static constexpr nng_socket closed = NNG_SOCKET_INITIALIZER;
  nng_socket m_socket = closed;
};

// The parent: listens, pushes for --seconds (blocking sends: push0 waits for room), then the
// end marker.
OpenSocket run_sender(const std::string& url, const Options& options)
{
  bare::pin_or_throw(bare::first_cpu(options.cpus));
  const nng_socket socket = open_socket(nng_push0_open, max_message_size);
  OpenSocket held_open(socket);
  set_queues(socket);
  check(nng_listen(socket, url.c_str(), nullptr, 0), "nng_listen");
  std::vector<std::byte> message(options.size, std::byte{0x5a});
  message[0] = data_tag;
  const auto end = Clock::now() + std::chrono::seconds(options.seconds);
  while (Clock::now() < end)
    check(nng_send(socket, message.data(), message.size(), 0), "send");
  message[0] = end_tag;
  check(nng_send(socket, message.data(), message.size(), 0), "send the end");
  return held_open;
}

int run(const Options& options)
{
  return bare::run_two_processes_over_loopback(
      {program, "sender", "receiver", std::chrono::seconds(15)}, options.ipc,
      [&](const std::string& url) { run_receiver(url, options); },
      [&](const std::string& url) { return run_sender(url, options); },
      [](OpenSocket) {}); // the receiver printed the rate
}

} // namespace

int main(int argc, char** argv)
{
  return bare::run_main(argc, argv, program, usage, bare::command_line_parser<Options>(take_option),
                        run);
}
