#!/usr/bin/env bash
# netprof over NNG against bare NNG programs, interleaved in one run:
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --nng-pattern pair -s 64 (its header + 64 B
#              out, its echo back) and of a bare pair0 ping-pong sending the same bytes
#              (transports/nng/bench/bare_nng_pingpong.cpp); target netprof <= 1.10x bare
#   stream:    received messages/s of netprof --nng-pattern pushpull -s 128 and of a bare
#              push0 -> pull0 stream of the same messages (transports/nng/bench/bare_nng_stream.cpp) for the same
#              time; target netprof >= 0.90x bare
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   transports/nng/bench/bench_nng.sh [BUILD_DIR] [--repeat N] [--iterations N] [--cpu A,B|none]
#       [--transport tcp|ipc]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default ./build)
# must hold a Release build with the benchmarks.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=5 iterations=20000 cpu_or_none
bench_option --transport transport=tcp 'tcp|ipc' choice
bench_parse_options "$@"

bench_begin bench_nng bare=bare_nng_pingpong bare_stream=bare_nng_stream
payload=64
payload_stream=128
seconds=2
limit=$(netprof_deadline 30)
out_bytes=$((payload + header))

echo "host: $(bench_host), libnng $(package_version libnng1)"
echo "$transport on loopback, pair0 both sides, cpus: $cpus; $out_bytes B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --size "$out_bytes" --echo-size "$echo_bytes" \
    --iterations "$iterations" --warmup "$warmup" --transport "$transport" "${pin[@]}"
  if [[ $transport == ipc ]]; then
    url="ipc://$work/netprof-$run.ipc"
  else
    url="tcp://127.0.0.1:0"
  fi
  run_netprof "$work/netprof.$run.json" --local-pair --nng "$url" --nng-pattern pair \
    --mode ping-pong -s "$payload" --count "$iterations" --warmup-count "$warmup" "${pin[@]}"
  run_limited "$limit" "$work/bare_stream.$run.json" "$bare_stream" \
    --size "$((payload_stream + header))" --seconds "$seconds" --transport "$transport" "${pin[@]}"
  [[ $transport == ipc ]] && url="ipc://$work/netprof-stream-$run.ipc"
  run_netprof "$work/netprof_stream.$run.json" --local-pair --nng "$url" --nng-pattern pushpull \
    -s "$payload_stream" -t "$seconds" "${pin[@]}"
done

warn_unless_release "$work/netprof.1.json"
echo "one-way p50 = RTT p50 / 2 (pair0); push/pull stream: messages received per second; medians of $repeat interleaved runs"
"$python" "$table" \
  "ping-pong vs bare pair0|ns|at_most|1.10|$(runs_of netprof publisher.latency.one_way_ns.p50)|$(runs_of bare one_way_p50_ns)" \
  "stream vs bare push0/pull0|msg/s|at_least|0.90|$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)|$(runs_of bare_stream messages_per_second)"

bench_finish
