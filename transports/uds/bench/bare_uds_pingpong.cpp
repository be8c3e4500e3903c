// The floor netprof's Unix-domain ping-pong is compared against: the leanest honest round trip
// over a connected pair of Unix sockets (socketpair) between two processes, with no netprof code
// (bare_stream_pingpong.hpp). transports/uds/bench/bench_uds.sh prints netprof's ratio to it.
//
//   bare_uds_pingpong [--type seqpacket|stream] [--size BYTES] [--echo-size BYTES]
//                     [--iterations N] [--warmup N] [--wait block|spin] [--cpu PINGER,PONGER]
//
// socketpair gives the same kernel path as a listener's accepted connection, without a file
// (bare_uds_pair.hpp).

#include "bare_uds_pair.hpp"

namespace {

constexpr const char* program = "bare_uds_pingpong";
constexpr const char* usage =
    "usage: bare_uds_pingpong [--type seqpacket|stream (=seqpacket)] [--size BYTES (=64)]\n"
    "       [--echo-size BYTES (=--size)] [--iterations N (=100000)] [--warmup N (=10000)]\n"
    "       [--wait block|spin (=block)] [--cpu PINGER,PONGER (=0,1; none: unpinned)]\n";

bool take_type(std::string_view flag, std::string_view value, bare::StreamOptions& options)
{
  return bare::uds::take_type(flag, value, options.kind);
}

bare::SocketPair connected_pair(const bare::StreamOptions& options)
{
  return bare::uds::connected_pair(options.kind);
}

} // namespace

int main(int argc, char** argv)
{
  bare::StreamOptions options;
  try {
    options = bare::parse_stream_options(argc, argv, take_type);
    if (options.kind.empty())
      options.kind = "seqpacket";
  } catch (const bare::UsageError& error) {
    return bare::usage_exit_status(error, program, usage);
  }
  return bare::run_stream_pingpong(program, options, connected_pair);
}
