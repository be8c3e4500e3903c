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
#   transports/nng/bench/bench_nng.sh [BUILD_DIR] [--repeat N] [--iterations N] [--transport tcp|ipc]
#       [--cpu A,B|none]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default ./build)
# must hold a Release build with the benchmarks.

set -euo pipefail

build_dir=./build
repeat=5
iterations=20000
warmup=2000
transport=tcp
cpus=none
payload=64
payload_stream=128
seconds=2
target_rate=0.90
target_latency=1.10

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat iterations
bench_option --transport transport 'tcp|ipc' choice
bench_option --cpu cpus 'A,B|none' '^([0-9]+,[0-9]+|none)$' "A,B or none"
bench_parse_options "$@"
warmup=$((iterations / 10))

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_nng_pingpong
bare_stream=$build_dir/bench/bare_nng_stream
python=/usr/bin/python3

require_binaries "$netprof" "$bare" "$bare_stream"
bench_start bench_nng

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline 30)
out_bytes=$((payload + header))
back_bytes=$(netprof_echo_bytes "$netprof") # what a subscriber sends back for each probe
pin=()
[[ $cpus != none ]] && pin=(--cpu "$cpus")

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load, libnng $(dpkg-query -W -f='${Version}' libnng1 2>/dev/null || echo '?')"
echo "$transport on loopback, pair0 both sides, cpus: $cpus; $out_bytes B out, $back_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --size "$out_bytes" --echo-size "$back_bytes" \
    --iterations "$iterations" --warmup "$warmup" --transport "$transport" "${pin[@]}"
  if [[ $transport == ipc ]]; then
    url="ipc://$work/netprof-$run.ipc"
  else
    url="tcp://127.0.0.1:0"
  fi
  tolerated_statuses=1 run_limited "$limit" "$work/netprof.$run.out" "$netprof" --local-pair \
    --nng "$url" --nng-pattern pair --mode ping-pong -s "$payload" --count "$iterations" \
    --warmup-count "$warmup" "${pin[@]}" --quiet --json "$work/netprof.$run.json"
  run_limited "$limit" "$work/bare_stream.$run.json" "$bare_stream" \
    --size "$((payload_stream + header))" --seconds "$seconds" --transport "$transport" "${pin[@]}"
  [[ $transport == ipc ]] && url="ipc://$work/netprof-stream-$run.ipc"
  tolerated_statuses=1 run_limited "$limit" "$work/netprof_stream.$run.out" "$netprof" --local-pair \
    --nng "$url" --nng-pattern pushpull -s "$payload_stream" -t "$seconds" "${pin[@]}" --quiet \
    --json "$work/netprof_stream.$run.json"
done

runs_of()
{
  local kind=$1 path=$2 files=() run
  for ((run = 1; run <= repeat; run++)); do files+=("$work/$kind.$run.json"); done
  fields "$path" "${files[@]}"
}

"$python" - "$repeat" "$target_latency" "$target_rate" "$(runs_of bare one_way_p50_ns)" \
  "$(runs_of netprof publisher.latency.one_way_ns.p50)" \
  "$(runs_of bare_stream messages_per_second)" \
  "$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)" <<'PY'
import statistics, sys

repeat, target, target_rate, bare, ours, bare_rate, ours_rate = sys.argv[1:]
target, target_rate = float(target), float(target_rate)

def numbers(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

bare, ours = numbers(bare), numbers(ours)

def median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None

def report(title, bare_label, bare_values, ours_values, target, higher_is_better):
    b, o = median(bare_values), median(ours_values)
    ratio = o / b if o and b else None
    per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}"
                       for x, y in zip(ours_values, bare_values))
    ours_label = "netprof".ljust(len(bare_label))
    print(title)
    print(f"  {bare_label} {b / 1e3:.1f}" if b else f"  {bare_label} n/a")
    print(f"  {ours_label} {o / 1e3:.1f}" if o else f"  {ours_label} n/a")
    if ratio is None:
        print("  ratio netprof/bare: n/a")
        return
    met = ratio >= target if higher_is_better else ratio <= target
    bound = ">=" if higher_is_better else "<="
    verdict = "PASS" if met else "MISS"
    print(f"  ratio netprof/bare: {ratio:.2f}x (target {bound} {target:.2f}x: {verdict}); "
          f"per run {per_run}")


report(f"one-way p50 (RTT p50 / 2), medians of {repeat} interleaved runs, us", "bare pair0",
       bare, ours, target, higher_is_better=False)
report(f"push/pull stream, received messages/s, medians of {repeat} interleaved runs, thousands",
       "bare push0/pull0", numbers(bare_rate), numbers(ours_rate), target_rate,
       higher_is_better=True)
PY

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
