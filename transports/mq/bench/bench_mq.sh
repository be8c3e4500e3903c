#!/usr/bin/env bash
# netprof's POSIX message-queue ping-pong against the bare baseline (transports/mq/bench/bare_mq_pingpong.cpp:
# two processes, a queue each way, nothing else), for each wait strategy, both measured in the
# same run: one-way p50 (RTT p50 / 2); netprof -s 64 sends its header + 64 B and gets its header
# plus the 8-byte frame back, the baseline the same sizes. Target: netprof <= 1.10x the bare
# ping-pong. Prints figures; a missed target is reported, never an error: the exit status is 0
# unless a run crashed or timed out.
#
#   transports/mq/bench/bench_mq.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS] [--cpu A,B]
#
# Every measurement is repeated --repeat times (5), baseline and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default
# ./build) must hold a Release build with the benchmarks. See docs/benchmarks.md.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=5 iterations=30000 time=2 cpu=0,1
bench_parse_options "$@"

bench_begin bench_mq bare=bare_mq_pingpong
payload=64
frame=8 # the mq transport's frame in front of every echo (transports/mq/back_frame.hpp)
limit=$(netprof_deadline "$seconds") # -t, plus warm-up and the end-of-test handshake
size=$((payload + header))
echo_size=$((echo_bytes + frame))

echo "host: $(bench_host); fs.mqueue: msg_max $(cat /proc/sys/fs/mqueue/msg_max), msgsize_max $(cat /proc/sys/fs/mqueue/msgsize_max)"
echo "bare: $iterations round trips (+$warmup warm-up), $size B out, $echo_size B back; netprof: --local-pair --mq --mode ping-pong -s $payload -t $seconds; both pinned to CPUs $cpus; $repeat runs each, interleaved"
echo

# Per wait strategy, the p50s of every run, then the medians' ratio.
rows=()
for wait_strategy in block spin; do
  bare_p50s=()
  netprof_p50s=()
  samples=()
  for ((run = 1; run <= repeat; run++)); do
    out=$work/bare_${wait_strategy}_$run.json
    run_limited 120 "$out" "$bare" --size "$size" --echo-size "$echo_size" \
      --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" "${pin[@]}"
    bare_p50s+=("$(field "$out" one_way_p50_ns)")
    json=$work/netprof_${wait_strategy}_$run.json
    # netprof's exit 1: the test ran but failed its own criteria; the figures still exist.
    tolerated_statuses=1 run_limited "$limit" "$work/netprof_${wait_strategy}_$run.out" \
      "$netprof" --local-pair --mq --mode ping-pong -s "$payload" --wait-strategy "$wait_strategy" \
      "${pin[@]}" -t "$seconds" --json "$json" --quiet
    netprof_p50s+=("$(field "$json" publisher.latency.one_way_ns.p50)")
    samples+=("$(field "$json" publisher.echoes_received)")
  done
  rows+=("$wait_strategy" "${bare_p50s[*]}" "${netprof_p50s[*]}" "${samples[*]}")
done

target=1.10
"$python" - "$target" "${rows[@]}" <<'EOF'
import statistics
import sys

target = float(sys.argv[1])
cells = sys.argv[2:]


def median(text):
    values = [float(v) for v in text.split() if v != "n/a"]
    return statistics.median(values) if values else None


print(f"one-way p50 (RTT p50 / 2), median of the runs, ns; target (spin) netprof <= "
      f"{target:.2f}x bare")
table = [("wait", "bare p50", "netprof p50", "ratio", "verdict", "bare runs", "netprof runs",
          "netprof samples")]
for i in range(0, len(cells), 4):
    wait, bare_runs, netprof_runs, samples = cells[i:i + 4]
    bare, ours = median(bare_runs), median(netprof_runs)
    if bare and ours:
        ratio = ours / bare
        # Only spin compares like with like: with block the baseline sleeps for every
        # message, while netprof looks a few times before it sleeps (docs/benchmarks.md).
        verdict = ("PASS" if ratio <= target else "MISS") if wait == "spin" else "(info)"
        figures = (f"{bare:.0f}", f"{ours:.0f}", f"{ratio:.2f}x", verdict)
    else:
        figures = ("n/a",) * 4
    table.append((wait, *figures, bare_runs, netprof_runs, samples))
widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
for row in table:
    print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
EOF

bench_finish
