#!/usr/bin/env bash
# netprof over iceoryx against a bare iceoryx ping-pong, interleaved in one run: one-way p50
# (RTT p50 / 2) of netprof --local-pair --iceoryx --mode ping-pong -s 64 --wait-strategy spin
# (its header + 64 B out, its echo back) and of bench/iceoryx_pingpong sending the same bytes
# the same way (loan, write in place, publish; busy-polled take), both pinned alike; target
# netprof <= 1.10x bare. Then, in the same rounds, netprof's one-way p50 at -s 1K and -s 1M (the
# transport lends its chunks; --payload-fill once, as iceperf, which does not build the payload
# per message either): target 1M <= 1.5x 1K; and 1M under --payload-fill every-message, to show
# what writing the payload costs. And a stream of -s 128 (spin, pinned) against the bare
# program's --stream (loan, stamp, publish; take), received messages/s: target netprof >= 0.9x
# bare. Prints figures and the ratios; a missed target is reported,
# never an error: the exit status is 0 unless a run crashed or timed out.
#
#   transports/iceoryx/bench/bench_iceoryx.sh [BUILD_DIR] [--repeat N] [--iterations N] [--cpu A,B]
#       [--placement most|near|far]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%; only the rounds on the
# placement of the vCPUs most of them held count, or the nearest or farthest with --placement
# near|far (bench/cache_line_pingpong's floor before and after each round; a verdict needs 3),
# since that placement alone can double a round trip of 0.7 us. A RouDi already running is
# used (and left running); otherwise one is started here for the whole run, and stopped by its
# PID at the end. BUILD_DIR (default ./build) must hold a Release build with the benchmarks.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=5 iterations=100000 cpu=0,1 placement
bench_parse_options "$@"

source "$bench_lib_dir/roudi_lib.sh"
command -v iox-roudi >/dev/null || { echo "iox-roudi is not on PATH: apt-get install iceoryx" >&2; exit 2; }
bench_begin bench_iceoryx bare=iceoryx_pingpong floor=cache_line_pingpong
trap 'stop_roudi; bench_cleanup' EXIT
payload=64
stream_payload=128
stream_seconds=2
min_kept=3 # rounds on one placement of the vCPUs a verdict needs
limit=$(netprof_deadline 60)
start_roudi

echo "host: $(bench_host), iceoryx $(package_version libiceoryx-posh2); $roudi_note"
echo "busy spin both sides, pinned to CPUs $cpus; $((payload + header)) B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  measure_floor "floor_before.round.$run"
  run_limited "$limit" "$work/bare.$run.json" "$bare" --size "$((payload + header))" \
    --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" "${pin[@]}"
  run_netprof "$work/netprof.$run.json" --local-pair --iceoryx --mode ping-pong \
    --wait-strategy spin -s "$payload" --count "$iterations" --warmup-count "$warmup" "${pin[@]}"
  # A megabyte a message takes longer whatever is copied: fewer of them keep a round short.
  for sized in 1K:once:$iterations 1M:once:$((iterations / 20)) 1M:every-message:$((iterations / 20)); do
    IFS=: read -r size fill count <<<"$sized"
    run_netprof "$work/size_$size.$fill.$run.json" --local-pair --iceoryx --mode ping-pong \
      --wait-strategy spin -s "$size" --count "$count" --warmup-count "$((count / 10))" \
      --payload-fill "$fill" "${pin[@]}"
  done
  run_limited "$limit" "$work/bare_stream.$run.json" "$bare" --stream "$stream_seconds" \
    --size "$((stream_payload + header))" "${pin[@]}"
  run_netprof "$work/netprof_stream.$run.json" --local-pair --iceoryx --wait-strategy spin \
    -s "$stream_payload" -t "$stream_seconds" "${pin[@]}"
  measure_floor "floor_after.round.$run"
done
warn_unless_release "$work/netprof.1.json"

one_way=publisher.latency.one_way_ns.p50
# Every row holds only the rounds on the placement of the vCPUs most of them held: a round trip
# of 0.7 us on one placement is 1.5 us on another.
mapfile -t kept < <(kept_on_one_placement "$repeat" round "$min_kept" \
  "$(runs_of netprof "$one_way")" "$(runs_of bare one_way_p50_ns)" \
  "$(runs_of netprof publisher.latency.rtt_ns.p99)" "$(runs_of bare rtt_p99_ns)" \
  "$(runs_of size_1M.once "$one_way")" "$(runs_of size_1K.once "$one_way")" \
  "$(runs_of size_1M.every-message "$one_way")" \
  "$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)" \
  "$(runs_of bare_stream messages_per_second)")
echo "one-way p50 = RTT p50 / 2; stream: messages received per second; medians of the rounds on"
echo "$(judged_placement "$repeat") (cache_line_pingpong's floor before and after each round): ${kept[-1]}"
echo "-s 1M rows: netprof at -s 1M against netprof at -s 1K (--payload-fill once) in the baseline column"
echo "netprof --iceoryx lends its chunks: $(field "$work/size_1M.once.1.json" publisher.transport_lent)"
"$python" "$table" \
  "ping-pong vs bare iceoryx_pingpong|ns|at_most|1.10|${kept[0]}|${kept[1]}" \
  "ping-pong RTT p99 vs bare iceoryx_pingpong|ns|reference||${kept[2]}|${kept[3]}" \
  "-s 1M, --payload-fill once|ns|at_most|1.50|${kept[4]}|${kept[5]}" \
  "-s 1M, --payload-fill every-message|ns|reference||${kept[6]}|${kept[5]}" \
  "stream -s $stream_payload vs bare loan/publish/take|msg/s|at_least|0.90|${kept[7]}|${kept[8]}"

bench_finish
