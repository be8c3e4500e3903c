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
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=5 iterations=20000 cpu_or_none
bench_option --qos qos=0 '0|1' choice
bench_parse_options "$@"

command -v mosquitto >/dev/null || { echo "mosquitto is not on PATH: apt-get install mosquitto" >&2; exit 2; }
bench_begin bench_mqtt bare=bare_mqtt_pingpong
payload=64

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
port=$(bench_free_port)
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

limit=$(netprof_deadline 30)
out_bytes=$((payload + header))
reliability=best-effort
[[ $qos == 1 ]] && reliability=reliable

echo "host: $(bench_host), $(mosquitto -h 2>&1 | head -1), libmosquitto $(package_version libmosquitto1)"
echo "MQTT QoS $qos through mosquitto on 127.0.0.1:$port, cpus: $cpus; $out_bytes B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --broker "127.0.0.1:$port" \
    --size "$out_bytes" --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" \
    --qos "$qos" "${pin[@]}"
  run_netprof "$work/netprof.$run.json" --local-pair --mqtt "127.0.0.1:$port" \
    --reliability "$reliability" --mode ping-pong -s "$payload" --count "$iterations" \
    --warmup-count "$warmup" "${pin[@]}"
done
warn_unless_release "$work/netprof.1.json"

echo "one-way p50 = RTT p50 / 2; medians of $repeat interleaved runs"
"$python" "$table" \
  "ping-pong vs bare libmosquitto|ns|at_most|1.10|$(runs_of netprof publisher.latency.one_way_ns.p50)|$(runs_of bare one_way_p50_ns)"

bench_finish
