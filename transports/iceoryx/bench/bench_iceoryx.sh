#!/usr/bin/env bash
# netprof over iceoryx against a bare iceoryx ping-pong, interleaved in one run: one-way p50
# (RTT p50 / 2) of netprof --local-pair --iceoryx --mode ping-pong -s 64 --wait-strategy spin
# (its header + 64 B out, its echo back) and of bench/iceoryx_pingpong sending the same bytes
# the same way (loan, write in place, publish; busy-polled take), both pinned alike; target
# netprof <= 1.10x bare. Prints figures and the ratio; a missed target is reported, never an
# error: the exit status is 0 unless a run crashed or timed out.
#
#   transports/iceoryx/bench/bench_iceoryx.sh [BUILD_DIR] [--repeat N] [--iterations N] [--cpu A,B]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%. A RouDi already running is
# used (and left running); otherwise one is started here for the whole run, and stopped by its
# PID at the end. BUILD_DIR (default ./build) must hold a Release build with the benchmarks.

set -euo pipefail

build_dir=./build
repeat=5
iterations=100000
cpus=0,1
payload=64
target_latency=1.10

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat iterations cpu
bench_parse_options "$@"
warmup=$((iterations / 10))

netprof=$build_dir/netprof
bare=$build_dir/bench/iceoryx_pingpong
python=/usr/bin/python3

source "$bench_lib_dir/roudi_lib.sh"
require_binaries "$netprof" "$bare"
command -v iox-roudi >/dev/null || { echo "iox-roudi is not on PATH: apt-get install iceoryx" >&2; exit 2; }
bench_start bench_iceoryx
trap 'stop_roudi; bench_cleanup' EXIT

header=$(netprof_header_bytes "$netprof")
echo_bytes=$(netprof_echo_bytes "$netprof")
limit=$(netprof_deadline 60)
start_roudi

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load, iceoryx $(dpkg-query -W -f='${Version}' libiceoryx-posh2 2>/dev/null || echo '?'); $roudi_note"
echo "busy spin both sides, pinned to CPUs $cpus; $((payload + header)) B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --size "$((payload + header))" \
    --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" --cpu "$cpus"
  tolerated_statuses=1 run_limited "$limit" "$work/netprof.$run.out" "$netprof" --local-pair \
    --iceoryx --mode ping-pong --wait-strategy spin -s "$payload" --count "$iterations" \
    --warmup-count "$warmup" --cpu "$cpus" --quiet --json "$work/netprof.$run.json"
done
warn_unless_release "$work/netprof.1.json"

runs_of()
{
  local kind=$1 path=$2 files=() run
  for ((run = 1; run <= repeat; run++)); do files+=("$work/$kind.$run.json"); done
  fields "$path" "${files[@]}"
}

"$python" - "$repeat" "$target_latency" "$(runs_of bare one_way_p50_ns)" \
  "$(runs_of netprof publisher.latency.one_way_ns.p50)" "$(runs_of bare rtt_p99_ns)" \
  "$(runs_of netprof publisher.latency.rtt_ns.p99)" <<'PY'
import statistics, sys

repeat, target, bare, ours, bare_p99, ours_p99 = sys.argv[1:]
target = float(target)

def numbers(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

def median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None

bare, ours = numbers(bare), numbers(ours)
b, o = median(bare), median(ours)
ratio = o / b if o and b else None
per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}" for x, y in zip(ours, bare))
bp, op = median(numbers(bare_p99)), median(numbers(ours_p99))
print(f"one-way p50 (RTT p50 / 2), medians of {repeat} interleaved runs, ns")
print(f"  bare iceoryx_pingpong {b:.0f}" if b else "  bare iceoryx_pingpong n/a",
      f"(RTT p99 {bp:.0f})" if bp else "")
print(f"  netprof --iceoryx     {o:.0f}" if o else "  netprof --iceoryx     n/a",
      f"(RTT p99 {op:.0f})" if op else "")
if ratio is None:
    print("  ratio netprof/bare: n/a")
else:
    verdict = "PASS" if ratio <= target else "MISS"
    print(f"  ratio netprof/bare: {ratio:.2f}x (target <= {target:.2f}x: {verdict}); per run {per_run}")
PY

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
