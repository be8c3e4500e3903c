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
target_size_ratio=1.50
target_stream=0.90
stream_payload=128
stream_seconds=2

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
  # A megabyte a message takes longer whatever is copied: fewer of them keep a round short.
  for sized in 1K:once:$iterations 1M:once:$((iterations / 20)) 1M:every-message:$((iterations / 20)); do
    IFS=: read -r size fill count <<<"$sized"
    tolerated_statuses=1 run_limited "$limit" "$work/size_$size.$fill.$run.out" "$netprof" \
      --local-pair --iceoryx --mode ping-pong --wait-strategy spin -s "$size" --count "$count" \
      --warmup-count "$((count / 10))" --payload-fill "$fill" --cpu "$cpus" --quiet \
      --json "$work/size_$size.$fill.$run.json"
  done
  run_limited "$limit" "$work/bare_stream.$run.json" "$bare" --stream "$stream_seconds" \
    --size "$((stream_payload + header))" --cpu "$cpus"
  tolerated_statuses=1 run_limited "$limit" "$work/netprof_stream.$run.out" "$netprof" \
    --local-pair --iceoryx --wait-strategy spin -s "$stream_payload" -t "$stream_seconds" \
    --cpu "$cpus" --quiet --json "$work/netprof_stream.$run.json"
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

"$python" - "$repeat" "$target_size_ratio" "$(runs_of size_1K.once publisher.latency.one_way_ns.p50)" \
  "$(runs_of size_1M.once publisher.latency.one_way_ns.p50)" \
  "$(runs_of size_1M.every-message publisher.latency.one_way_ns.p50)" \
  "$(runs_of size_1M.once publisher.transport_lent)" <<'PY'
import statistics, sys

repeat, target, small, large, large_copied, lent = sys.argv[1:]
target = float(target)

def median(text):
    present = [float(word) for word in text.split() if word != "n/a"]
    return statistics.median(present) if present else None

s, l, c = median(small), median(large), median(large_copied)
print(f"netprof --iceoryx one-way p50 by payload (lent: {lent.split()[0] if lent else 'n/a'}), "
      f"medians of {repeat} interleaved runs, ns")
print(f"  -s 1K, --payload-fill once          {s:.0f}" if s else "  -s 1K n/a")
print(f"  -s 1M, --payload-fill once          {l:.0f}" if l else "  -s 1M n/a")
print(f"  -s 1M, --payload-fill every-message {c:.0f}" if c else "  -s 1M every-message n/a")
if s and l:
    verdict = "PASS" if l / s <= target else "MISS"
    print(f"  ratio 1M/1K (once): {l / s:.2f}x (target <= {target:.2f}x: {verdict})")
if s and c:
    print(f"  ratio 1M/1K (every-message): {c / s:.2f}x (the payload's copy included)")
PY

"$python" - "$repeat" "$target_stream" "$stream_payload" "$(runs_of bare_stream messages_per_second)" \
  "$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)" <<'PY'
import statistics, sys

repeat, target, payload, bare, ours = sys.argv[1:]

def values(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

bare, ours = values(bare), values(ours)
present = lambda xs: [x for x in xs if x is not None]
b = statistics.median(present(bare)) if present(bare) else None
o = statistics.median(present(ours)) if present(ours) else None
print(f"stream -s {payload}, received messages/s, medians of {repeat} interleaved runs, thousands")
print(f"  bare loan/publish/take {b / 1e3:.0f}" if b else "  bare n/a")
print(f"  netprof --iceoryx      {o / 1e3:.0f}" if o else "  netprof n/a")
if b and o:
    per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}" for x, y in zip(ours, bare))
    verdict = "PASS" if o / b >= float(target) else "MISS"
    print(f"  ratio netprof/bare: {o / b:.2f}x (target >= {float(target):.2f}x: {verdict}); per run {per_run}")
PY

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
