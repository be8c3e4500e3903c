#!/usr/bin/env bash
# netprof over MQTT against a bare libmosquitto program, interleaved in one run, both through the
# same mosquitto broker (started here on a free loopback port, stopped by its PID at the end):
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --local-pair --mqtt 127.0.0.1:PORT -s 64 (its
#              header + 64 B out, its echo back) and of a bare libmosquitto ping-pong sending the
#              same bytes (transports/mqtt/bench/bare_mqtt_pingpong.cpp); target netprof <= 1.10x
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   transports/mqtt/bench/bench_mqtt.sh [BUILD_DIR] [--repeat N] [--iterations N] [--qos 0|1]
#       [--cpu A,B|none]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the medians
# compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default ./build) must hold
# a Release build with the benchmarks. The broker is a third process on the same cores: pin with
# --cpu only when the host has cores to spare for it.

set -euo pipefail

build_dir=./build
repeat=5
iterations=20000
warmup=2000
qos=0
cpus=none
payload=64
target_latency=1.10

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat iterations
bench_option --qos qos '0|1' choice
bench_option --cpu cpus 'A,B|none' '^([0-9]+,[0-9]+|none)$' "A,B or none"
bench_parse_options "$@"
warmup=$((iterations / 10))

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_mqtt_pingpong
python=/usr/bin/python3

require_binaries "$netprof" "$bare"
command -v mosquitto >/dev/null || { echo "mosquitto is not on PATH: apt-get install mosquitto" >&2; exit 2; }
bench_start bench_mqtt

broker_pid=""
stop_broker()
{
  if [[ -n $broker_pid ]]; then
    kill -TERM "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
    broker_pid=""
  fi
}
trap 'stop_broker; bench_cleanup' EXIT

# The broker: 127.0.0.1 only, anonymous, no limit on a subscriber's queue (as netprof's own).
port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chmod 755 "$work" # mosquitto, run as root, reads its configuration before it drops to its user
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\nset_tcp_nodelay true\n' \
  "$port" >"$work/mosquitto.conf"
chmod 644 "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker_pid=$!
for ((try = 0; try < 200; try++)); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$broker_pid" 2>/dev/null || { echo "mosquitto exited: $(tail -1 "$work/mosquitto.log")" >&2; exit 1; }
  sleep 0.05
done

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline 30)
out_bytes=$((payload + header))
back_bytes=$(netprof_echo_bytes "$netprof") # what a subscriber sends back for each probe
pin=()
[[ $cpus != none ]] && pin=(--cpu "$cpus")
reliability=best-effort
[[ $qos == 1 ]] && reliability=reliable

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load, $(mosquitto -h 2>&1 | head -1), libmosquitto $(dpkg-query -W -f='${Version}' libmosquitto1 2>/dev/null || echo '?')"
echo "MQTT QoS $qos through mosquitto on 127.0.0.1:$port, cpus: $cpus; $out_bytes B out, $back_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --broker "127.0.0.1:$port" \
    --size "$out_bytes" --echo-size "$back_bytes" --iterations "$iterations" --warmup "$warmup" \
    --qos "$qos" "${pin[@]}"
  tolerated_statuses=1 run_limited "$limit" "$work/netprof.$run.out" "$netprof" --local-pair \
    --mqtt "127.0.0.1:$port" --reliability "$reliability" --mode ping-pong -s "$payload" \
    --count "$iterations" --warmup-count "$warmup" "${pin[@]}" --quiet \
    --json "$work/netprof.$run.json"
done

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
print(f"  bare libmosquitto {b / 1e3:.1f}" if b else "  bare libmosquitto n/a")
print(f"  netprof           {o / 1e3:.1f}" if o else "  netprof           n/a")
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
