// The floor netprof's TCP ping-pong is compared against: the leanest honest round trip over a
// loopback TCP connection between two processes, TCP_NODELAY on, with no netprof code
// (bare_stream_pingpong.hpp). transports/tcp/bench/bench_tcp.sh prints netprof's ratio to it.
//
//   bare_tcp_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                     [--wait block|spin] [--cpu PINGER,PONGER]

#include "bare_stream_pingpong.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

namespace {

constexpr const char* program = "bare_tcp_pingpong";
constexpr const char* usage =
    "usage: bare_tcp_pingpong [--size BYTES (=64)] [--echo-size BYTES (=--size)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--wait block|spin (=block)]\n"
    "       [--cpu PINGER,PONGER (=0,1; none: unpinned)]\n";

int tcp_socket()
{
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
    throw bare::Failure{"socket", errno};
  return fd;
}

// Both ends connected before the fork: the connect completes from the listener's backlog.
bare::SocketPair connected_pair(const bare::StreamOptions&)
{
  const int listener = tcp_socket();
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      listen(listener, 1) != 0)
    throw bare::Failure{"listen", errno};
  bare::SocketPair pair;
  pair.first = tcp_socket();
  if (connect(pair.first, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    throw bare::Failure{"connect", errno};
  pair.second = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  const int on = 1;
  if (pair.second < 0 || setsockopt(pair.second, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
    throw bare::Failure{"accept", errno};
  close(listener);
  return pair;
}

} // namespace

int main(int argc, char** argv)
{
  bare::StreamOptions options;
  try {
    options = bare::parse_stream_options(
        argc, argv, [](std::string_view, std::string_view, bare::StreamOptions&) { return false; });
    options.kind = "tcp";
  } catch (const bare::UsageError& error) {
    return bare::usage_exit_status(error, program, usage);
  }
  return bare::run_stream_pingpong(program, options, connected_pair);
}
