#!/usr/bin/env bash
# netprof over ZeroMQ (tcp on loopback) against bare cppzmq baselines, in one run:
#   ping-pong 64 B: one-way p50 (RTT p50 / 2) of bench/bare_zmq_pingpong vs netprof --mode ping-pong
#   stream 128 B:   received messages/s of bench/bare_zmq_stream vs netprof's stream mode
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   scripts/bench/bench_zmq.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS] [--cpu A,B]
#                        [--wait block|spin]
#
# Every measurement is repeated --repeat times (3), the runs of the baseline and of netprof
# interleaved, and the medians compared, because one run on a shared VM swings by 20-40%.
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks. See
# docs/transport-zmq.md for how to read the output.

set -euo pipefail

build_dir=./build
repeat=3
iterations=30000
warmup=3000
seconds=2
cpus=0,1
wait_strategy=block
payload_pingpong=64
payload_stream=128
queue_length=1000000 # netprof's default -q, from which it derives the high-water mark
header=52            # netprof's wire header (include/netprof/wire.hpp)
target_latency=1.15
target_rate=0.80

usage()
{
  sed -n '9,10p' "$0" | sed 's/^# *//'
}

while (($# > 0)); do
  case $1 in
  --repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
  --iterations) iterations=${2:?--iterations needs a value}; shift 2 ;;
  --time) seconds=${2:?--time needs a value}; shift 2 ;;
  --cpu) cpus=${2:?--cpu needs a value}; shift 2 ;;
  --wait) wait_strategy=${2:?--wait needs a value}; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  *) build_dir=$1; shift ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "--repeat must be a positive integer" >&2; exit 2; }
[[ $iterations =~ ^[1-9][0-9]*$ ]] || { echo "--iterations must be a positive integer" >&2; exit 2; }
[[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "--time must be a number of seconds" >&2; exit 2; }
[[ $cpus =~ ^[0-9]+,[0-9]+$ ]] || { echo "--cpu must be A,B (publisher side, subscriber side)" >&2; exit 2; }
[[ $wait_strategy =~ ^(block|spin)$ ]] || { echo "--wait must be block or spin" >&2; exit 2; }

netprof=$build_dir/netprof
bare_pingpong=$build_dir/bench/bare_zmq_pingpong
bare_stream=$build_dir/bench/bare_zmq_stream
python=/usr/bin/python3

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
require_binaries "$netprof" "$bare_pingpong" "$bare_stream"
bench_start bench_zmq

# The median of one figure over the runs whose JSON files match a glob, or "n/a" when none has it.
median()
{
  "$python" -c '
import glob, json, statistics, sys
values = []
for path in sorted(glob.glob(sys.argv[1])):
    try:
        value = json.load(open(path))
        for key in sys.argv[2].split("."):
            value = value[int(key)] if isinstance(value, list) else value[key]
        values.append(float(value))
    except Exception:
        pass
print(round(statistics.median(values)) if values else "n/a")
' "$1" "$2"
}

limit=$("$python" -c 'import math, sys; print(60 + math.ceil(float(sys.argv[1])))' "$seconds")
pingpong_wire=$((payload_pingpong + header))
stream_wire=$((payload_stream + header))
hwm=$(((queue_length + stream_wire - 1) / stream_wire)) # netprof's rule; see docs/transport-zmq.md
netprof_common=(--local-pair --zmq 'tcp://127.0.0.1:*' --cpu "$cpus" --wait-strategy "$wait_strategy"
                -q "$queue_length" -t "$seconds" --quiet)

echo "host: $(uname -sr), $(nproc) CPUs, libzmq $(pkg-config --modversion libzmq 2>/dev/null || echo '?')"
echo "tcp on 127.0.0.1, pinned to CPUs $cpus (publisher/pinger side, subscriber/ponger side), wait $wait_strategy"
echo "like for like: netprof -s N sends N + $header B messages, so the baselines send that size"
echo

for ((run = 1; run <= repeat; run++)); do
  # ping-pong
  run_limited "$limit" "$work/bare_pp.$run.json" "$bare_pingpong" --size "$pingpong_wire" \
    --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" --cpu "$cpus"
  run_limited "$limit" "$work/netprof_pp.$run.out" "$netprof" "${netprof_common[@]}" \
    --mode ping-pong -s "$payload_pingpong" --json "$work/netprof_pp.$run.json"
  run_limited "$limit" "$work/bare_pp_pair.$run.json" "$bare_pingpong" --size "$pingpong_wire" \
    --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" --cpu "$cpus" \
    --pattern pair
  # stream
  run_limited "$limit" "$work/bare_st.$run.json" "$bare_stream" --size "$stream_wire" \
    --seconds "$seconds" --hwm "$hwm" --buffer "$queue_length" --wait "$wait_strategy" \
    --cpu "$cpus"
  run_limited "$limit" "$work/netprof_st.$run.out" "$netprof" "${netprof_common[@]}" \
    -s "$payload_stream" --json "$work/netprof_st.$run.json"
  run_limited "$limit" "$work/bare_st_push.$run.json" "$bare_stream" --size "$stream_wire" \
    --seconds "$seconds" --hwm "$hwm" --buffer "$queue_length" --wait "$wait_strategy" \
    --cpu "$cpus" --pattern push-pull
  run_limited "$limit" "$work/netprof_st_nodrop.$run.out" "$netprof" "${netprof_common[@]}" \
    -s "$payload_stream" --zmq-nodrop --json "$work/netprof_st_nodrop.$run.json"
  # Diagnostic: the same streams with probes at 10 Hz, so the publisher rarely polls its back
  # channel; the gap to the rows above is the core's cost of polling for echoes after every
  # send while a probe is out (an empty zmq_msg_recv costs about a microsecond).
  run_limited "$limit" "$work/netprof_st_probe10.$run.out" "$netprof" "${netprof_common[@]}" \
    -s "$payload_stream" --probe-hz 10 --json "$work/netprof_st_probe10.$run.json"
  run_limited "$limit" "$work/netprof_st_nodrop_probe10.$run.out" "$netprof" \
    "${netprof_common[@]}" -s "$payload_stream" --zmq-nodrop --probe-hz 10 \
    --json "$work/netprof_st_nodrop_probe10.$run.json"
done
if ! grep -q '"build_type": "Release"' "$work"/netprof_pp.*.json 2>/dev/null; then
  echo "note: netprof was not built as Release (or did not run); its timings are not representative" >&2
fi

"$python" - "$target_latency" "$target_rate" "$payload_pingpong" "$pingpong_wire" \
  "$payload_stream" "$stream_wire" "$hwm" "$repeat" \
  "$(median "$work/bare_pp.*.json" one_way_p50_ns)" \
  "$(median "$work/bare_pp_pair.*.json" one_way_p50_ns)" \
  "$(median "$work/netprof_pp.*.json" publisher.latency.one_way_ns.p50)" \
  "$(median "$work/bare_pp.*.json" rtt_p99_ns)" \
  "$(median "$work/netprof_pp.*.json" publisher.latency.rtt_ns.p99)" \
  "$(median "$work/netprof_pp.*.json" publisher.echoes_received)" \
  "$(median "$work/bare_st.*.json" messages_per_second)" \
  "$(median "$work/bare_st.*.json" lost)" \
  "$(median "$work/netprof_st.*.json" subscribers.0.throughput.messages_per_second)" \
  "$(median "$work/netprof_st.*.json" subscribers.0.lost)" \
  "$(median "$work/bare_st_push.*.json" messages_per_second)" \
  "$(median "$work/netprof_st_nodrop.*.json" subscribers.0.throughput.messages_per_second)" \
  "$(median "$work/netprof_st_nodrop.*.json" subscribers.0.lost)" \
  "$(median "$work/netprof_st_probe10.*.json" subscribers.0.throughput.messages_per_second)" \
  "$(median "$work/netprof_st_nodrop_probe10.*.json" subscribers.0.throughput.messages_per_second)" <<'EOF'
import sys

(target_latency, target_rate, pp_payload, pp_wire, st_payload, st_wire, hwm, repeat,
 bare_pp, bare_pair, ours_pp, bare_p99, ours_p99, samples,
 bare_st, bare_st_lost, ours_st, ours_st_lost, bare_push, ours_nodrop, ours_nodrop_lost,
 ours_probe10, ours_nodrop_probe10) = sys.argv[1:]
target_latency, target_rate = float(target_latency), float(target_rate)

def number(text):
    try:
        return float(text)
    except ValueError:
        return None

def ratio(ours, bare, target, lower_is_better):
    o, b = number(ours), number(bare)
    if not o or not b:
        return "n/a", "n/a"
    r = o / b
    ok = r <= target if lower_is_better else r >= target
    return f"{r:.2f}x", "PASS" if ok else "MISS"

def table(rows):
    widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))

print(f"medians of {repeat} interleaved runs each")
print(f"ping-pong, {pp_payload} B payload ({pp_wire} B messages): one-way p50 = RTT p50 / 2, ns;"
      f" target netprof <= {target_latency:.2f}x bare XPUB/XSUB")
r, verdict = ratio(ours_pp, bare_pp, target_latency, True)
table([("bare XPUB/XSUB", "bare PAIR", "netprof", "ratio", "verdict", "RTT p99 bare",
        "RTT p99 netprof", "netprof samples"),
       (bare_pp, bare_pair, ours_pp, r, verdict, bare_p99, ours_p99, samples)])
print()
print(f"stream, {st_payload} B payload ({st_wire} B messages), HWM {hwm} messages: received"
      f" messages/s on the subscriber's clock; target netprof >= {target_rate:.2f}x bare")
r1, v1 = ratio(ours_st, bare_st, target_rate, False)
r2, v2 = ratio(ours_nodrop, bare_push, target_rate, False)
table([("at the HWM", "bare", "netprof", "ratio", "verdict", "lost bare", "lost netprof"),
       ("drop (XPUB, default)", bare_st, ours_st, r1, v1, bare_st_lost, ours_st_lost),
       ("wait (PUSH / --zmq-nodrop)", bare_push, ours_nodrop, r2, v2, "0", ours_nodrop_lost)])
r3, _ = ratio(ours_probe10, bare_st, target_rate, False)
r4, _ = ratio(ours_nodrop_probe10, bare_push, target_rate, False)
print(f"diagnostic, netprof with --probe-hz 10 (the publisher then rarely polls its back channel):"
      f" drop {ours_probe10} ({r3}), wait {ours_nodrop_probe10} ({r4})")
EOF

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
