// The floor netprof's TCP ping-pong is compared against: the leanest honest round trip over a
// loopback TCP connection between two processes, TCP_NODELAY on, with no netprof code
// (bare_stream_pingpong.hpp). transports/tcp/bench/bench_tcp.sh prints netprof's ratio to it.
//
//   bare_tcp_pingpong [--size BYTES] [--echo-size BYTES] [--iterations N] [--warmup N]
//                     [--wait block|spin] [--cpu PINGER,PONGER]

#include "bare_tcp_pair.hpp"

namespace {

constexpr const char* program = "bare_tcp_pingpong";
constexpr const char* usage =
    "usage: bare_tcp_pingpong [--size BYTES (=64)] [--echo-size BYTES (=--size)]\n"
    "       [--iterations N (=100000)] [--warmup N (=10000)] [--wait block|spin (=block)]\n"
    "       [--cpu PINGER,PONGER (=0,1; none: unpinned)]\n";

bare::SocketPair connected_pair(const bare::StreamOptions&)
{
  return bare::tcp::connected_pair();
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
