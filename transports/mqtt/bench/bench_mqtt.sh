#!/usr/bin/env bash
# netprof over MQTT against bare libmosquitto programs, interleaved in one run, all through the
# same mosquitto broker (started here on a free loopback port, stopped by its PID at the end):
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --local-pair --mqtt 127.0.0.1:PORT -s 64 (its
#              header + 64 B out, its echo back) and of a bare libmosquitto ping-pong sending the
#              same bytes (transports/mqtt/bench/bare_mqtt_pingpong.cpp); target netprof <= 1.10x
#   stream:    messages/s received, on the subscriber's clock, of netprof --local-pair --mqtt
#              127.0.0.1:PORT -s 128 -t SECONDS (stream mode, its 1,000 probes/s echoed) and of a
#              bare libmosquitto publisher and subscriber sending the same bytes and echoing as
#              many probes (transports/mqtt/bench/bare_mqtt_stream.cpp); target netprof >= 0.90x
# each at QoS 0 and 1 (--qos both) or the one given. Prints figures; a missed target is reported,
# never an error: the exit status is 0 unless a run crashed or timed out.
#
#   transports/mqtt/bench/bench_mqtt.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS]
#       [--qos 0|1|both] [--measure all|ping-pong|stream] [--cpu A,B|none]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the medians
# compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default ./build) must hold
# a Release build with the benchmarks. The broker is a third process on the same cores: pin with
# --cpu only when the host has cores to spare for it.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$bench_lib_dir/broker_lib.sh"
bench_common_options repeat=5 iterations=20000 time=2 cpu_or_none
bench_option --qos qos=both '0|1|both' choice
bench_option --measure measure=all 'all|ping-pong|stream' choice
bench_parse_options "$@"

command -v mosquitto >/dev/null || { echo "mosquitto is not on PATH: apt-get install mosquitto" >&2; exit 2; }
bench_begin bench_mqtt bare=bare_mqtt_pingpong bare_stream=bare_mqtt_stream
payload=64
payload_stream=128

# The broker: 127.0.0.1 only, anonymous, no limit on a subscriber's queue (as netprof's own).
port=$(bench_free_port)
chmod 755 "$work" # mosquitto, run as root, reads its configuration before it drops to its user
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\nset_tcp_nodelay true\n' \
  "$port" >"$work/mosquitto.conf"
chmod 644 "$work/mosquitto.conf"
broker_start mosquitto "$port" "$work/mosquitto.log" mosquitto -c "$work/mosquitto.conf"

limit=$(($(netprof_deadline "$seconds") + 30))
out_bytes=$((payload + header))
stream_bytes=$((payload_stream + header))
levels=(0 1)
[[ $qos == both ]] || levels=("$qos")
broker="127.0.0.1:$port"

# netprof's --reliability for MQTT QoS $1.
reliability_of()
{
  if (($1 == 0)); then echo best-effort; else echo reliable; fi
}

# One ping-pong of each at QoS $1, run $2.
run_pingpong()
{
  run_limited "$limit" "$work/bare_q$1.$2.json" "$bare" --broker "$broker" \
    --size "$out_bytes" --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" \
    --qos "$1" "${pin[@]}"
  run_netprof "$work/netprof_q$1.$2.json" --local-pair --mqtt "$broker" \
    --reliability "$(reliability_of "$1")" --mode ping-pong -s "$payload" --count "$iterations" \
    --warmup-count "$warmup" "${pin[@]}"
}

# One stream of each at QoS $1, run $2: the same bytes, the same 0.5 s warm-up (netprof's
# default), the same probes echoed (1,000/s), netprof's window for its default -q.
run_stream()
{
  run_limited "$limit" "$work/bare_stream_q$1.$2.json" "$bare_stream" --broker "$broker" \
    --size "$stream_bytes" --echo-size "$echo_bytes" --seconds "$seconds" --qos "$1" "${pin[@]}"
  run_netprof "$work/netprof_stream_q$1.$2.json" --local-pair --mqtt "$broker" \
    --reliability "$(reliability_of "$1")" -s "$payload_stream" -t "$seconds" "${pin[@]}"
}

echo "host: $(bench_host), $(mosquitto -h 2>&1 | head -1), libmosquitto $(package_version libmosquitto1)"
echo "MQTT QoS ${levels[*]} through mosquitto on $broker, cpus: $cpus"
[[ $measure == stream ]] || echo "ping-pong: $out_bytes B out, $echo_bytes B back (netprof -s $payload)"
[[ $measure == ping-pong ]] || echo "stream: $stream_bytes B messages for $seconds s (netprof -s $payload_stream), $echo_bytes B echoes of 1,000 probes/s"
echo

for ((run = 1; run <= repeat; run++)); do
  for level in "${levels[@]}"; do
    [[ $measure == stream ]] || run_pingpong "$level" "$run"
    [[ $measure == ping-pong ]] || run_stream "$level" "$run"
  done
done

rows=()
for level in "${levels[@]}"; do
  [[ $measure == stream ]] || rows+=("ping-pong QoS $level vs bare libmosquitto|ns|at_most|1.10|$(runs_of "netprof_q$level" publisher.latency.one_way_ns.p50)|$(runs_of "bare_q$level" one_way_p50_ns)")
  [[ $measure == ping-pong ]] || rows+=("stream QoS $level vs bare libmosquitto|msg/s|at_least|0.90|$(runs_of "netprof_stream_q$level" subscribers.0.throughput.messages_per_second)|$(runs_of "bare_stream_q$level" messages_per_second)")
done
broker_results "${rows[@]}"

bench_finish
