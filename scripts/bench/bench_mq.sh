#!/usr/bin/env bash
# netprof's POSIX message-queue ping-pong against the bare baseline (bench/bare_mq_pingpong.cpp:
# two processes, a queue each way, nothing else), for each wait strategy, both measured in the
# same run: one-way p50 (RTT p50 / 2); netprof -s 64 sends its header + 64 B and gets its header
# plus the 8-byte frame back, the baseline the same sizes. Target: netprof <= 1.10x the bare
# ping-pong. Prints figures; a missed target is reported, never an error: the exit status is 0
# unless a run crashed or timed out.
#
#   scripts/bench/bench_mq.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS] [--cpu A,B]
#
# Every measurement is repeated --repeat times (5), baseline and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default
# ./build) must hold a Release build with the benchmarks. See docs/benchmarks.md.

set -euo pipefail

build_dir=./build
repeat=5
iterations=30000
warmup=3000
seconds=2
cpus=0,1
payload=64
frame=8 # the mq transport's frame in front of every echo (transports/mq/back_frame.hpp)
target=1.10

usage()
{
  grep -A1 -m1 '^#   scripts/' "$0" | sed 's/^#   //'
}

while (($# > 0)); do
  case $1 in
  --repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
  --iterations) iterations=${2:?--iterations needs a value}; shift 2 ;;
  --time) seconds=${2:?--time needs a value}; shift 2 ;;
  --cpu) cpus=${2:?--cpu needs a value}; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  *) build_dir=$1; shift ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || { echo "--repeat must be 1 to 99" >&2; exit 2; }
[[ $iterations =~ ^[1-9][0-9]*$ ]] || { echo "--iterations must be a positive integer" >&2; exit 2; }
[[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "--time must be a number of seconds" >&2; exit 2; }
[[ $cpus =~ ^[0-9]+,[0-9]+$ ]] || { echo "--cpu must be A,B (publisher side, subscriber side)" >&2; exit 2; }

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_mq_pingpong
python=/usr/bin/python3

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
require_binaries "$netprof" "$bare"
bench_start bench_mq

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline "$seconds")
size=$((payload + header))
echo_size=$((header + frame))

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load; fs.mqueue: msg_max $(cat /proc/sys/fs/mqueue/msg_max), msgsize_max $(cat /proc/sys/fs/mqueue/msgsize_max)"
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
      --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" --cpu "$cpus"
    bare_p50s+=("$(field "$out" one_way_p50_ns)")
    json=$work/netprof_${wait_strategy}_$run.json
    # netprof's exit 1: the test ran but failed its own criteria; the figures still exist.
    tolerated_statuses=1 run_limited "$limit" "$work/netprof_${wait_strategy}_$run.out" \
      "$netprof" --local-pair --mq --mode ping-pong -s "$payload" --wait-strategy "$wait_strategy" \
      --cpu "$cpus" -t "$seconds" --json "$json" --quiet
    netprof_p50s+=("$(field "$json" publisher.latency.one_way_ns.p50)")
    samples+=("$(field "$json" publisher.echoes_received)")
  done
  rows+=("$wait_strategy" "${bare_p50s[*]}" "${netprof_p50s[*]}" "${samples[*]}")
done

"$python" - "$target" "${rows[@]}" <<'EOF'
import statistics
import sys

target = float(sys.argv[1])
cells = sys.argv[2:]


def median(text):
    values = [float(v) for v in text.split() if v != "n/a"]
    return statistics.median(values) if values else None


print(f"one-way p50 (RTT p50 / 2), median of the runs, ns; target netprof <= {target:.2f}x bare")
table = [("wait", "bare p50", "netprof p50", "ratio", "verdict", "bare runs", "netprof runs",
          "netprof samples")]
for i in range(0, len(cells), 4):
    wait, bare_runs, netprof_runs, samples = cells[i:i + 4]
    bare, ours = median(bare_runs), median(netprof_runs)
    if bare and ours:
        ratio = ours / bare
        figures = (f"{bare:.0f}", f"{ours:.0f}", f"{ratio:.2f}x",
                   "PASS" if ratio <= target else "MISS")
    else:
        figures = ("n/a",) * 4
    table.append((wait, *figures, bare_runs, netprof_runs, samples))
widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
for row in table:
    print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
EOF

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
