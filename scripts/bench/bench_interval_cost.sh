#!/usr/bin/env bash
# What --interval costs the measured loop: the same --local-pair ping-pong run with and without
# --interval 1, alternately, in rounds; prints each round's one-way p50 and the median ratio
# (with / without). Figures only, no target: the exit status is 0 unless a run crashed or timed
# out.
#
#   scripts/bench/bench_interval_cost.sh [BUILD_DIR] [--time SECONDS] [--rounds N] [--cpu A,B] [--transport shm|udp]
#
# BUILD_DIR (default ./build) must hold a Release netprof. See docs/benchmarks.md.

set -euo pipefail

build_dir=./build
seconds=3
rounds=3
cpus=0,1
transport=shm
python=/usr/bin/python3

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_common_options time cpu
bench_option --rounds rounds N positive
bench_option --transport transport 'shm|udp' choice
bench_parse_options "$@"
# shm spins, as bench_shm.sh and bench_threads.sh do: the loop's own cost is then most of the
# round trip, so what --interval adds to it shows.
case $transport in
shm) transport_args=(--shm --wait-strategy spin) ;;
udp) transport_args=() ;; # the local pair's default: udp on loopback, blocking waits
*) echo "--transport must be shm or udp" >&2; exit 2 ;;
esac

netprof=$build_dir/netprof
require_binaries "$netprof"
bench_start bench_interval_cost
limit=$(netprof_deadline "$seconds")

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load; $transport ping-pong, -t $seconds s, pinned to CPUs $cpus, $rounds rounds"
printf '%-6s %16s %16s %8s\n' round "without p50 ns" "with p50 ns" ratio
ratios=()
for ((round = 1; round <= rounds; ++round)); do
  p50=()
  for interval in none 1; do
    extra=()
    [[ $interval != none ]] && extra=(--interval "$interval")
    report=$work/round$round-$interval.json
    run_limited "$limit" "$work/out" "$netprof" --local-pair --mode ping-pong -t "$seconds" \
      --warmup-time 0.5 --cpu "$cpus" --quiet "${transport_args[@]}" "${extra[@]+"${extra[@]}"}" \
      --json "$report"
    if ((last_status == 1)); then # the run ended but failed: say why, from its report
      echo "  its problems: $(field "$report" result.problems)" >&2
    fi
    p50+=("$(field "$report" publisher.latency.one_way_ns.p50)")
  done
  ratio=$("$python" -c '
import sys
try:
    print(f"{float(sys.argv[2]) / float(sys.argv[1]):.3f}")
except Exception:
    print("n/a")
' "${p50[0]}" "${p50[1]}")
  ratios+=("$ratio")
  printf '%-6s %16s %16s %8s\n' "$round" "${p50[0]}" "${p50[1]}" "$ratio"
done
[[ -f $work/round1-1.json ]] && warn_unless_release "$work/round1-1.json"
"$python" -c '
import statistics, sys
values = [float(v) for v in sys.argv[1:] if v != "n/a"]
print("median ratio (with --interval 1 / without): " +
      (f"{statistics.median(values):.3f}" if values else "n/a"))
' "${ratios[@]}"
exit $((failures > 0))
