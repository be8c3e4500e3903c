#!/usr/bin/env bash
# netprof --local-pair --threads against the process pair, in one run: the shm ping-pong (busy
# spin, 64 B, pinned to two CPUs when there are two) with the publisher and subscriber as two
# processes, then as two threads of one process, alternately for several rounds so that both
# see the same machine (a VM's vCPUs may move between rounds). Prints every round's one-way p50
# (RTT p50 / 2) and the median of the per-round ratio threads / processes. Target (issue 20):
# threads within 1.2x of processes, or better. A missed target is reported, never an error: the
# exit status is 0 unless a run crashed or timed out.
#
#   scripts/bench/bench_threads.sh [BUILD_DIR] [--time SECONDS] [--rounds N] [--cpu A,B]
#
# BUILD_DIR (default ./build) holds a Release build of netprof (no benchmark programs needed).

set -euo pipefail

build_dir=./build
seconds=2  # netprof's -t for each run
rounds=5
cpus=""    # default: 0,1 on a host with two CPUs or more, else unpinned
payload=64
target=1.2 # threads one-way p50 / processes one-way p50, at most

python=/usr/bin/python3
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_common_options time rounds
bench_option --cpu cpus A,B '^([0-9]+,[0-9]+)?$' "A,B (default 0,1 on two CPUs or more, else unpinned)"
bench_parse_options "$@"
if [[ -z $cpus ]] && (($(nproc) >= 2)); then
  cpus=0,1
fi

netprof=$build_dir/netprof
require_binaries "$netprof"
bench_start bench_threads
pinning=()
[[ -n $cpus ]] && pinning=(--cpu "$cpus")

echo "host: $(uname -sr), $(nproc) CPUs, clock $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
placement="unpinned (one CPU)"
[[ -n $cpus ]] && placement="pinned to CPUs $cpus (publisher, subscriber)"
echo "shm ping-pong, $payload B, --wait-strategy spin, -t $seconds s per run, $placement"
echo

limit=$(netprof_deadline "$seconds")
for ((round = 1; round <= rounds; round++)); do
  for layout in processes threads; do
    threads=()
    [[ $layout == threads ]] && threads=(--threads)
    run_limited "$limit" "$work/$layout.$round.out" \
      "$netprof" --local-pair "${threads[@]}" --shm --mode ping-pong --wait-strategy spin \
      "${pinning[@]}" -s "$payload" -t "$seconds" --quiet --json "$work/$layout.$round.json"
  done
done

warn_unless_release "$work/threads.1.json"

of_rounds()
{
  local layout=$1 path=$2 files=() round
  for ((round = 1; round <= rounds; round++)); do files+=("$work/$layout.$round.json"); done
  fields "$path" "${files[@]}"
}

"$python" - "$target" \
  "$(of_rounds processes publisher.latency.one_way_ns.p50)" \
  "$(of_rounds threads publisher.latency.one_way_ns.p50)" \
  "$(of_rounds processes publisher.latency.one_way_ns.p99)" \
  "$(of_rounds threads publisher.latency.one_way_ns.p99)" \
  "$(of_rounds threads settings.local_pair)" <<'EOF'
import statistics, sys

target = float(sys.argv[1])

def numbers(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

processes, threads, processes_p99, threads_p99 = map(numbers, sys.argv[2:6])
layouts = sys.argv[6].split()
if any(layout != "threads" for layout in layouts):
    print(f"warning: a --threads run did not report local_pair \"threads\": {layouts}")

def text(value):
    return "n/a" if value is None else f"{value:g}"

print("one-way latency, ns (RTT / 2); ratio = threads / processes in the same round")
rows = [("round", "processes p50", "threads p50", "ratio", "processes p99", "threads p99")]
ratios = []
for n, (p, t, p99, t99) in enumerate(zip(processes, threads, processes_p99, threads_p99), 1):
    ratio = t / p if p and t else None
    if ratio:
        ratios.append(ratio)
    rows.append((n, text(p), text(t), f"{ratio:.2f}x" if ratio else "-", text(p99), text(t99)))
widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
for row in rows:
    print("  " + "  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))
if not ratios:
    print("target: not judged, no round has both figures")
    sys.exit(0)
median = statistics.median(ratios)
print(f"medians: processes {statistics.median([p for p in processes if p]):g} ns, "
      f"threads {statistics.median([t for t in threads if t]):g} ns")
print(f"target: threads <= {target:.2f}x processes, median ratio over {len(ratios)} rounds: "
      f"{median:.2f}x: {'PASS' if median <= target else 'MISS'}")
EOF

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
