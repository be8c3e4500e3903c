// The floor netprof's Unix-domain stream mode is compared against: a sender writing messages of
// one size as fast as the kernel takes them (blocking sends) over a connected pair of Unix
// sockets (socketpair) to a receiver in another process that counts them, with no netprof code
// (bench/bare_stream_throughput.hpp). transports/uds/bench/bench_uds.sh prints netprof's ratio
// to it.
//
//   bare_uds_stream [--type seqpacket|stream] [--size BYTES] [--seconds S] [--warmup S]
//                   [--buffer BYTES] [--wait block|spin] [--cpu SENDER,RECEIVER]
//
// Like for like with `netprof --local-pair --uds --mode stream -s 128`: --size 180 over
// seqpacket (netprof's 52 B header and the payload, one record each), --size 188 over stream
// (and its 8 B frame header); --buffer as netprof's -q (1000000 by default), both ends;
// --warmup 0.5 as its --warmup-time. netprof's publisher also sends 1,000 probes a second that
// its subscriber echoes (--probe-hz): that, and everything else netprof does per message, is
// what the ratio measures. The rate is the receiver's: messages after the first over the time
// from the first measured message to the last, as netprof's subscriber counts. Prints one JSON
// line, e.g. {"kind":"seqpacket","wait":"block","size":180,...,"messages_per_second":512345.6}.
// Exit status: 0 measured, 1 runtime error, 2 bad command line.

#include "bare_stream_throughput.hpp"
#include "bare_uds_pair.hpp"

namespace {

constexpr const char* program = "bare_uds_stream";
constexpr const char* usage =
    "usage: bare_uds_stream [--type seqpacket|stream (=seqpacket)] [--size BYTES (=180)]\n"
    "       [--seconds S (=2)] [--warmup S (=0.5)] [--buffer BYTES (=1000000; 0: OS default)]\n"
    "       [--wait block|spin (=block)] [--cpu SENDER,RECEIVER (none: unpinned)]\n";

bare::ThroughputOptions parse_options(int argc, char** argv)
{
  bare::ThroughputOptions options;
  options.kind = "seqpacket";
  bare::for_each_option(argc, argv, [&](std::string_view flag, std::string_view value) {
    if (!bare::take_throughput_option(flag, value, options) &&
        !bare::uds::take_type(flag, value, options.kind))
      throw bare::UsageError{
          "unknown option (known: --type --size --seconds --warmup --buffer --wait --cpu)"};
  });
  return options;
}

bare::SocketPair connected_pair(const bare::ThroughputOptions& options)
{
  return bare::uds::connected_pair(options.kind);
}

} // namespace

int main(int argc, char** argv)
{
  bare::ThroughputOptions options;
  try {
    options = parse_options(argc, argv);
  } catch (const bare::UsageError& error) {
    return bare::usage_exit_status(error, program, usage);
  }
  return bare::run_stream_throughput(program, options, connected_pair);
}
