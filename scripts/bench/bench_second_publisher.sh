#!/usr/bin/env bash
# What a second publisher costs the first (issue 33: "adding a second publisher costs the first
# publisher's p50 latency nothing measurable"). One local group over TCP, ping-pong, with one
# publisher and one subscriber, then the same with --publishers 2 (two publisher processes, the
# subscriber receiving each on a thread of its own), alternately for several rounds so both see
# the same machine. Compares publisher 0's RTT p50 (and p99) in the two: the baseline is the
# same netprof run with one publisher, in the same run of this script. Beside it, the same
# question put to bench/bare_tcp_pingpong (no netprof code): one bare pair alone, then two at
# once, so what the machine does with a second busy pair shows apart from what netprof does.
#
#   scripts/bench/bench_second_publisher.sh [BUILD_DIR] [--time SECONDS] [--rounds N]
#       [--cpu A,B|none]
#
# --cpu A,B pins every publisher to A and the subscriber (its every thread) to B; none (the
# default) leaves them to the scheduler. Prints figures; the exit status is 0 unless a run
# crashed or timed out (a missed target is a verdict, not an error). See docs/methodology.md,
# "Several publishers".

set -euo pipefail

rounds=5
payload=128
target=1.10 # publisher 0's p50 with a second publisher / with none, at most

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_common_options time=3 rounds cpu_or_none
bench_parse_options "$@"

bench_begin bench_second_publisher bare=bare_tcp_pingpong
bare_pin=()
[[ $cpus == none ]] || bare_pin=(--cpu "$cpus")
bare_iterations=20000
limit=$(netprof_deadline "$seconds")
placement="unpinned"
[[ $cpus == none ]] || placement="every publisher on CPU ${cpus%,*}, the subscriber on CPU ${cpus#*,}"
echo "host: $(bench_host)"
echo "tcp ping-pong, -s $payload, -t $seconds s per run, $placement; $rounds interleaved rounds"
echo

for ((round = 1; round <= rounds; round++)); do
  for publishers in 1 2; do
    run_netprof "$work/p$publishers.$round.json" --local-pair --tcp --publishers "$publishers" \
      --mode ping-pong -s "$payload" -t "$seconds" "${pin[@]}"
  done
  # Like for like: netprof's 52 B header on the payload, its 68 B echo record.
  bare_run=("$bare" --size $((payload + header)) --echo-size "$echo_bytes" \
    --iterations "$bare_iterations" --warmup $((bare_iterations / 10)) "${bare_pin[@]}")
  run_limited "$limit" "$work/bare1.$round.json" "${bare_run[@]}"
  timeout --kill-after=5 "$limit" "${bare_run[@]}" >"$work/bare_beside.$round.json" 2>&1 &
  beside=$!
  running+=("$beside")
  run_limited "$limit" "$work/bare2.$round.json" "${bare_run[@]}"
  wait "$beside" 2>/dev/null || true
  running=()
done
warn_unless_release "$work/p1.1.json"

for ((round = 1; round <= rounds; round++)); do
  echo "round $round: p50 one publisher $(field "$work/p1.$round.json" publisher.latency.rtt_ns.p50) ns," \
    "two $(field "$work/p2.$round.json" publisher.latency.rtt_ns.p50) ns;" \
    "publisher 1's p50 $(field "$work/p2.$round.json" publishers.1.publisher.latency.rtt_ns.p50) ns"
done
echo
echo "publisher 0's round trip with a second publisher beside it, against it alone; ratio = two / one"
"$python" "$table" \
  "rtt p50|ns|at_most|$target|$(figures_of_runs "$rounds" p2 publisher.latency.rtt_ns.p50)|$(figures_of_runs "$rounds" p1 publisher.latency.rtt_ns.p50)" \
  "rtt p99|ns|reference||$(figures_of_runs "$rounds" p2 publisher.latency.rtt_ns.p99)|$(figures_of_runs "$rounds" p1 publisher.latency.rtt_ns.p99)"
echo
echo "the same for bare_tcp_pingpong: one pair with a second beside it, against it alone (the machine's share)"
"$python" "$table" \
  "bare rtt p50|ns|reference||$(figures_of_runs "$rounds" bare2 rtt_p50_ns)|$(figures_of_runs "$rounds" bare1 rtt_p50_ns)" \
  "bare rtt p99|ns|reference||$(figures_of_runs "$rounds" bare2 rtt_p99_ns)|$(figures_of_runs "$rounds" bare1 rtt_p99_ns)"
echo
echo "netprof's publisher 0 with a second publisher, against a bare pair with a second pair beside it"
"$python" "$table" \
  "rtt p50, two|ns|reference||$(figures_of_runs "$rounds" p2 publisher.latency.rtt_ns.p50)|$(figures_of_runs "$rounds" bare2 rtt_p50_ns)"
bench_finish
