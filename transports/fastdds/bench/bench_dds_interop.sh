#!/usr/bin/env bash
# Cyclone DDS and Fast DDS against each other (docs/results.md, "Across DDS vendors"): a
# ping-pong for each pairing of publisher and subscriber vendor (Cyclone -> Fast DDS, Fast DDS ->
# Cyclone, and each with itself), interleaved, each process on its vendor's loopback profile, and
# the medians of the one-way p50 and p99 (RTT / 2) over --repeat runs. Figures only: the exit
# status is 0 unless a run failed or outlived its deadline.
#
#   transports/fastdds/bench/bench_dds_interop.sh [BUILD_DIR] [--repeat N] [--iterations N]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=3 iterations=5000
bench_parse_options "$@"
bench_begin bench_dds_interop

limit=$(netprof_deadline 60)
subscriber_pid=""
stop_subscriber()
{
  if [[ -n $subscriber_pid ]]; then
    kill -TERM "$subscriber_pid" 2>/dev/null || true
    wait "$subscriber_pid" 2>/dev/null || true
    subscriber_pid=""
  fi
}
trap 'stop_subscriber; bench_cleanup' EXIT
pairings=("dds fastdds" "fastdds dds" "fastdds fastdds" "dds dds")
echo "host: $(bench_host), Cyclone DDS $(package_version libddsc0debian), Fast DDS $(package_version libfastrtps2.9)"
echo "ping-pong -s 64, $iterations probes after $warmup, reliable, loopback profiles, unpinned"
echo

# One pairing's run: a subscriber of one vendor, a publisher of the other, on topics of their own.
run_pairing()
{
  local publisher=$1 subscriber=$2 json=$3 topic
  topic="interop_$$_${RANDOM}"
  timeout "$limit" "$netprof" -i 1 "--$subscriber" "$topic" "--$subscriber-loopback" \
    --reliability reliable >"$work/subscriber.out" 2>&1 &
  subscriber_pid=$!
  run_netprof "$json" -i 0 "--$publisher" "$topic" "--$publisher-loopback" \
    --reliability reliable --mode ping-pong -s 64 --count "$iterations" --warmup-count "$warmup"
  wait "$subscriber_pid" || echo "the $subscriber subscriber exited $?: $(tail -1 "$work/subscriber.out")" >&2
  subscriber_pid=""
}

for ((run = 1; run <= repeat; run++)); do
  for pairing in "${pairings[@]}"; do
    read -r publisher subscriber <<<"$pairing"
    run_pairing "$publisher" "$subscriber" "$work/$publisher-$subscriber.$run.json"
  done
done

printf '%-24s %14s %14s   %s\n' "publisher -> subscriber" "one-way p50" "one-way p99" "p50 per run"
for pairing in "${pairings[@]}"; do
  read -r publisher subscriber <<<"$pairing"
  p50=$(runs_of "$publisher-$subscriber" publisher.latency.one_way_ns.p50)
  p99=$(runs_of "$publisher-$subscriber" publisher.latency.one_way_ns.p99)
  "$python" - "$publisher" "$subscriber" "$p50" "$p99" <<'EOF'
import statistics, sys
vendor = {"dds": "Cyclone", "fastdds": "Fast DDS"}
name = f"{vendor[sys.argv[1]]} -> {vendor[sys.argv[2]]}"
p50, p99 = sys.argv[3].split(), sys.argv[4].split()
us = lambda values: [float(v) / 1e3 for v in values]
print(f"{name:<24} {statistics.median(us(p50)):11.1f} us {statistics.median(us(p99)):11.1f} us"
      f"   {' '.join(f'{v:.1f}' for v in us(p50))}")
EOF
done
bench_finish
