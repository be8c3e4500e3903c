#!/usr/bin/env bash
# netprof over NNG against a bare NNG pair0 ping-pong (bench/bare_nng_pingpong.cpp), interleaved
# in one run: one-way p50 (RTT p50 / 2) of netprof --nng-pattern pair -s 64 (its header + 64 B
# out, its echo back) and of the bare pair0 ping-pong sending the same bytes; target netprof
# <= 1.10x bare. Prints figures; a missed target is reported, never an error: the exit status is
# 0 unless a run crashed or timed out.
#
#   scripts/bench/bench_nng.sh [BUILD_DIR] [--repeat N] [--iterations N] [--transport tcp|ipc]
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
echo_extra=0 # netprof's echo is a bare header (src/core/subscriber.cpp: OutgoingMessage m_echo(0))
target_latency=1.10

usage()
{
  grep -A1 -m1 '^#   scripts/' "$0" | sed 's/^#   //'
}

while (($# > 0)); do
  case $1 in
  --repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
  --iterations) iterations=${2:?--iterations needs a value}; shift 2 ;;
  --transport) transport=${2:?--transport needs a value}; shift 2 ;;
  --cpu) cpus=${2:?--cpu needs a value}; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  *) build_dir=$1; shift ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || { echo "--repeat must be 1 to 99" >&2; exit 2; }
[[ $iterations =~ ^[1-9][0-9]*$ ]] || { echo "--iterations must be a positive integer" >&2; exit 2; }
[[ $transport =~ ^(tcp|ipc)$ ]] || { echo "--transport must be tcp or ipc" >&2; exit 2; }
[[ $cpus =~ ^([0-9]+,[0-9]+|none)$ ]] || { echo "--cpu must be A,B or none" >&2; exit 2; }
warmup=$((iterations / 10))

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_nng_pingpong
python=/usr/bin/python3

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
require_binaries "$netprof" "$bare"
bench_start bench_nng

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline 30)
out_bytes=$((payload + header))
back_bytes=$((header + echo_extra))
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
done

runs_of()
{
  local kind=$1 path=$2 files=() run
  for ((run = 1; run <= repeat; run++)); do files+=("$work/$kind.$run.json"); done
  fields "$path" "${files[@]}"
}

"$python" - "$repeat" "$target_latency" "$(runs_of bare one_way_p50_ns)" \
  "$(runs_of netprof publisher.latency.one_way_ns.p50)" <<'PY'
import statistics, sys

repeat, target, bare, ours = sys.argv[1:]
target = float(target)

def numbers(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

bare, ours = numbers(bare), numbers(ours)

def median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None

b, o = median(bare), median(ours)
ratio = o / b if o and b else None
per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}" for x, y in zip(ours, bare))
print(f"one-way p50 (RTT p50 / 2), medians of {repeat} interleaved runs, us")
print(f"  bare pair0 {b / 1e3:.1f}" if b else "  bare pair0 n/a")
print(f"  netprof    {o / 1e3:.1f}" if o else "  netprof    n/a")
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
