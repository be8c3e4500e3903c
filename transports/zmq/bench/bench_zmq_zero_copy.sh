#!/usr/bin/env bash
# ZeroMQ large-message stream, copying sends against --zmq-zero-copy, in one run: received
# messages/s on the subscriber's clock, and the publisher's CPU time per message sent (user +
# system, from the shell's `time` of the publisher process alone, ZeroMQ's I/O thread included).
#
#   transports/zmq/bench/bench_zmq_zero_copy.sh [BUILD_DIR] [--size BYTES] [--repeat N] [--time SECONDS] [--cpu A,B]
#
# tcp on loopback, --zmq-nodrop (the publisher waits at the high-water mark, so nothing is
# lost and both modes move the same messages), -q 64 MB. Runs of the two modes are interleaved
# and the medians compared. Prints figures; the exit status is 0 unless a run failed.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_option --size size=1048576 BYTES positive
bench_option --repeat repeat=3 N positive
bench_common_options time=3 cpu=0,1
bench_parse_options "$@"

bench_begin bench_zmq_zero_copy
queue_length=64000000
limit=$(netprof_deadline "$seconds")

# One publisher/subscriber pair; the publisher's CPU seconds go to $stem.cpu.
run_pair()
{
  local stem=$1 zero_copy=$2 publisher_port subscriber_port subscriber_pid status=0
  publisher_port=$(bench_free_port)
  subscriber_port=$(bench_free_port)
  timeout --kill-after=5 "$limit" "$netprof" -i 1 --zmq "tcp://127.0.0.1:$subscriber_port" \
    --zmq "tcp://127.0.0.1:$publisher_port" -s "$size" -q "$queue_length" --cpu "${cpus#*,}" \
    --quiet --json "$stem.sub.json" >/dev/null 2>"$stem.sub.err" &
  subscriber_pid=$!
  running=("$subscriber_pid")
  TIMEFORMAT='%U %S'
  { time timeout --kill-after=5 "$limit" "$netprof" -i 0 --zmq "tcp://127.0.0.1:$publisher_port" \
      --subscribers 1 -s "$size" -q "$queue_length" -t "$seconds" --zmq-nodrop \
      --zmq-zero-copy "$zero_copy" --cpu "${cpus%,*}" --quiet --json "$stem.pub.json" \
      >/dev/null 2>"$stem.pub.err"; } 2>"$stem.cpu" || status=$?
  wait "$subscriber_pid" || status=$?
  running=()
  if ((status != 0)); then
    ((failures += 1))
    echo "FAILED (exit $status): $stem" >&2
    tail -n 3 "$stem.pub.err" "$stem.sub.err" >&2 || true
  fi
}

echo "host: $(bench_host), libzmq $(pkg-config --modversion libzmq 2>/dev/null || echo '?')"
echo "tcp on 127.0.0.1, -s $size, -q $queue_length, --zmq-nodrop, $seconds s per run," \
  "publisher on CPU ${cpus%,*}, subscriber on CPU ${cpus#*,}"
for ((run = 1; run <= repeat; run++)); do
  run_pair "$work/copy.$run" 0
  run_pair "$work/zero.$run" 1
done

"$python" - "$work" "$repeat" "$size" <<'EOF'
import json, statistics, sys

work, repeat, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def figures(mode):
    rates, cpu_per_message, lent = [], [], []
    for run in range(1, repeat + 1):
        stem = f"{work}/{mode}.{run}"
        try:
            pub = json.load(open(stem + ".pub.json"))
            sub = json.load(open(stem + ".sub.json"))
            user, system = (float(x) for x in open(stem + ".cpu").read().split())
        except (OSError, ValueError):
            continue
        sent = pub["publisher"]["messages_sent"]
        rates.append(sub["subscriber"]["throughput"]["messages_per_second"]
                     if "subscriber" in sub else pub["subscribers"][0]["throughput"]["messages_per_second"])
        cpu_per_message.append((user + system) / max(sent, 1) * 1e6)
        lent += [n for n in pub["endpoint"].get("notes", []) if n.startswith("zero-copy")]
    median = lambda v: statistics.median(v) if v else float("nan")
    return median(rates), median(cpu_per_message), len(rates), lent[:1]

rows = [("mode", "runs", "received msg/s", "payload GB/s", "publisher CPU us/msg")]
results = {}
notes = []
for mode, label in (("copy", "copying sends"), ("zero", "--zmq-zero-copy 1")):
    rate, cpu, runs, lent = figures(mode)
    notes += lent
    results[mode] = (rate, cpu)
    rows.append((label, str(runs), f"{rate:,.0f}", f"{rate * size / 1e9:.2f}", f"{cpu:,.1f}"))
widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
print(f"medians of {repeat} interleaved runs")
for row in rows:
    print("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
(copy_rate, copy_cpu), (zero_rate, zero_cpu) = results["copy"], results["zero"]
for note in notes:
    print("publisher's note:", note)
if copy_rate and copy_cpu:
    print(f"zero-copy / copying: {zero_rate / copy_rate:.2f}x the received rate, "
          f"{zero_cpu / copy_cpu:.2f}x the publisher's CPU per message")
EOF
bench_finish
