#!/usr/bin/env bash
# netprof's UDP stream throughput against sockperf's throughput mode, over loopback, pinned the
# same way, in one run: small messages without batching, with --udp-batch (sendmmsg and UDP GSO)
# and with --udp-batch --udp-gso off (sendmmsg alone), then 1 MiB messages beside a bare memcpy
# figure for scale. Prints figures; a missed target is reported, never an error:
# the exit status is 0 unless a run crashed or timed out.
#
#   transports/udp/bench/bench_udp_throughput.sh [BUILD_DIR] [--time SECONDS] [--cpu A,B] [--batch N]
#
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks; sockperf comes
# from Debian (apt-get install sockperf). See docs/transport-udp.md for how to read the output.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options whole_time=5 cpu=0,1
bench_option --batch batch=32 N positive
bench_parse_options "$@"

command -v sockperf >/dev/null || { echo "sockperf not found: apt-get install sockperf" >&2; exit 2; }
bench_begin bench_udp_throughput memcpy=memcpy_bandwidth
sender_cpu=${cpus%,*}
receiver_cpu=${cpus#*,}
payload=64
large=1048576
large_queue=64000000

# sockperf's throughput mode: the client sends as fast as it can for -t seconds; the server
# counts what it received and says so when interrupted. Writes "received/s sent/s" to $2.
sockperf_rate()
{
  local size=$1 result=$2 port out=$work/sockperf_$1 status=0
  port=$(bench_free_port udp)
  timeout --signal=INT --kill-after=5 $((seconds + 30)) \
    taskset -c "$receiver_cpu" sockperf server -i 127.0.0.1 -p "$port" >"$out.server" 2>&1 &
  local server=$!
  running=("$server")
  # The server is ready when its socket is bound.
  for _ in $(seq 50); do
    ss -uln "sport = :$port" | grep -q "$port" && break
    sleep 0.1
  done
  timeout --kill-after=5 $((seconds + 30)) \
    taskset -c "$sender_cpu" sockperf throughput -i 127.0.0.1 -p "$port" -m "$size" -t "$seconds" \
    >"$out.client" 2>&1 || status=$?
  sleep 0.2 # what is in flight reaches the server before it stops counting
  bench_stop_server "$server" "$status" "sockperf throughput -m $size" "$out.client"
  "$python" - "$out.server" "$out.client" >"$result" <<'EOF'
import re, sys
server, client = (open(path, errors="replace").read() for path in sys.argv[1:3])
received = re.search(r"Total (\d+) messages received", server)
sent = re.search(r"Total of (\d+) messages sent in ([\d.]+) sec", client)
if received and sent and float(sent.group(2)) > 0:
    duration = float(sent.group(2))
    print(f"{int(received.group(1)) / duration:.0f} {int(sent.group(1)) / duration:.0f}")
else:
    print("n/a n/a")
EOF
}

netprof_limit=$(netprof_deadline "$seconds")
wire_size=$((payload + header))

echo "host: $(bench_host)"
echo "loopback, ${seconds} s per run; sender (sockperf client, netprof publisher) on CPU $sender_cpu,"
echo "receiver (sockperf server, netprof subscriber) on CPU $receiver_cpu. Rates are messages RECEIVED per second."
echo "like for like: netprof -s $payload sends $payload B payload + $header B header = $wire_size B datagrams,"
echo "so its ratio divides by sockperf -m $wire_size; sockperf -m $payload is printed for reference."
echo

sockperf_rate "$payload" "$work/sockperf_small"
sockperf_rate "$wire_size" "$work/sockperf_wire"
read -r sp_small_rx sp_small_tx <"$work/sockperf_small"
read -r sp_wire_rx sp_wire_tx <"$work/sockperf_wire"

for run in plain batch sendmmsg; do
  extra=()
  [[ $run == batch ]] && extra=(--udp-batch "$batch")
  [[ $run == sendmmsg ]] && extra=(--udp-batch "$batch" --udp-gso off)
  run_limited "$netprof_limit" "$work/netprof_$run.out" \
    "$netprof" --local-pair -s "$payload" -t "$seconds" --cpu "$cpus" "${extra[@]}" \
    --json "$work/netprof_$run.json" --quiet
done
check_datagram_size "$work/netprof_plain.json" "$wire_size"
warn_unless_release "$work/netprof_plain.json"

run_limited "$netprof_limit" "$work/netprof_large.out" \
  "$netprof" --local-pair -s "$large" -t "$seconds" --cpu "$cpus" -q "$large_queue" \
  --json "$work/netprof_large.json" --quiet
run_limited 60 "$work/memcpy.json" "$memcpy" --block "$large" --span 536870912 --cpu "$receiver_cpu"

target_plain=1.0
target_batch=1.5
"$python" - "$target_plain" "$target_batch" "$batch" "$payload" "$wire_size" \
  "$sp_small_rx" "$sp_small_tx" "$sp_wire_rx" "$sp_wire_tx" "$work" <<'EOF'
import json, sys

target_plain, target_batch = float(sys.argv[1]), float(sys.argv[2])
batch, payload, wire = sys.argv[3:6]
sp_small_rx, sp_small_tx, sp_wire_rx, sp_wire_tx = sys.argv[6:10]
work = sys.argv[10]

def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None

def load(name):
    try:
        with open(f"{work}/{name}") as f:
            return json.load(f)
    except Exception:
        return None

def fmt(value, digits=0):
    return "n/a" if value is None else f"{value:,.{digits}f}"

rows = [("run", "received msg/s", "sent msg/s", "lost", "vs sockperf %sB" % wire,
         "vs sockperf %sB" % payload, "target", "verdict")]
rows.append((f"sockperf -m {payload}", fmt(number(sp_small_rx)), fmt(number(sp_small_tx)),
             "", "", "", "", ""))
rows.append((f"sockperf -m {wire}", fmt(number(sp_wire_rx)), fmt(number(sp_wire_tx)),
             "", "", "", "", ""))
for name, label, target in (("plain", f"netprof -s {payload}", target_plain),
                            ("batch", f"netprof -s {payload} --udp-batch {batch}", target_batch),
                            ("sendmmsg", f"netprof -s {payload} --udp-batch {batch} --udp-gso off",
                             target_batch)):
    report = load(f"netprof_{name}.json")
    rx = tx = lost = None
    if report and report.get("subscribers"):
        sub = report["subscribers"][0]
        rx = sub["throughput"]["messages_per_second"]
        seconds = report["publisher"]["measured_seconds"]
        tx = report["publisher"]["messages_sent"] / seconds if seconds else None
        lost = sub["lost"]
    like, small = number(sp_wire_rx), number(sp_small_rx)
    ratio = rx / like if rx and like else None
    verdict = "n/a" if ratio is None else ("PASS" if ratio >= target else "MISS")
    rows.append((label, fmt(rx), fmt(tx), fmt(lost), "n/a" if ratio is None else f"{ratio:.2f}x",
                 "n/a" if not (rx and small) else f"{rx / small:.2f}x", f">= {target:.1f}x",
                 verdict))
widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
for row in rows:
    print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))

print()
large = load("netprof_large.json")
copy = load("memcpy.json")
if large and large.get("subscribers"):
    sub = large["subscribers"][0]
    rate = sub["throughput"]["payload_bytes_per_second"]
    print(f"netprof -s 1 MiB: {rate / 1e9:.2f} GB/s payload received, "
          f"{sub['throughput']['messages_per_second']:.0f} msg/s, lost {sub['lost']} of "
          f"{large['publisher']['messages_sent']}, {sub['datagrams']} datagrams")
else:
    rate = None
    print("netprof -s 1 MiB: n/a")
if copy:
    print(f"bare memcpy of 1 MiB blocks: {copy['hot_bytes_per_second'] / 1e9:.2f} GB/s in cache, "
          f"{copy['span_bytes_per_second'] / 1e9:.2f} GB/s through memory"
          + (f"; netprof moves {rate / copy['span_bytes_per_second']:.2f}x the latter"
             if rate else ""))
else:
    print("bare memcpy: n/a")
EOF

bench_finish
