#!/usr/bin/env bash
# netprof over Redis pub/sub against a bare hiredis program, interleaved in one run, both through
# the same redis-server (started here on a free loopback port, stopped by its PID at the end):
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --local-pair --redis 127.0.0.1:PORT -s 64 (its
#              header + 64 B out, its echo back) and of a bare hiredis ping-pong sending the same
#              bytes (transports/redis/bench/bare_redis_pingpong.cpp); target netprof <= 1.10x
#   stream:    messages/s received, on the subscriber's clock, of netprof --local-pair --redis
#              127.0.0.1:PORT -s 128 -t SECONDS (stream mode, its 1,000 probes/s echoed) and of a
#              bare hiredis publisher and subscriber sending the same bytes and echoing as many
#              probes (transports/redis/bench/bare_redis_stream.cpp); netprof >= 0.90x wanted
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   transports/redis/bench/bench_redis.sh [BUILD_DIR] [--repeat N] [--iterations N]
#       [--time SECONDS] [--measure all|ping-pong|stream] [--cpu A,B|none]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the medians
# compared, because one run on a shared VM swings by 20-40%. BUILD_DIR (default ./build) must hold
# a Release build with the benchmarks. The server is a third process on the same cores: pin with
# --cpu only when the host has cores to spare for it.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$bench_lib_dir/broker_lib.sh"
bench_common_options repeat=5 iterations=20000 time=2 cpu_or_none
bench_option --measure measure=all 'all|ping-pong|stream' choice
bench_parse_options "$@"

command -v redis-server >/dev/null || { echo "redis-server is not on PATH: apt-get install redis-server" >&2; exit 2; }
bench_begin bench_redis bare=bare_redis_pingpong bare_stream=bare_redis_stream
payload=64
payload_stream=128

# The server: 127.0.0.1 only, no persistence, no Unix socket, its folder the run's (as netprof's own).
port=$(bench_free_port)
printf 'bind 127.0.0.1\nport %s\nprotected-mode yes\nsave ""\nappendonly no\ndaemonize no\ndir "%s"\nlogfile ""\n' \
  "$port" "$work" >"$work/redis.conf"
broker_start redis-server "$port" "$work/redis.log" redis-server "$work/redis.conf"

limit=$(($(netprof_deadline "$seconds") + 30))
out_bytes=$((payload + header))
stream_bytes=$((payload_stream + header))
server="127.0.0.1:$port"

echo "host: $(bench_host), $(redis-server --version | cut -d' ' -f1-3), hiredis $(package_version libhiredis0.14)"
echo "Redis pub/sub through redis-server on $server, cpus: $cpus"
[[ $measure == stream ]] || echo "ping-pong: $out_bytes B out, $echo_bytes B back (netprof -s $payload)"
[[ $measure == ping-pong ]] || echo "stream: $stream_bytes B messages for $seconds s (netprof -s $payload_stream), $echo_bytes B echoes of 1,000 probes/s"
echo

for ((run = 1; run <= repeat; run++)); do
  if [[ $measure != stream ]]; then
    run_limited "$limit" "$work/bare.$run.json" "$bare" --server "$server" \
      --size "$out_bytes" --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" \
      "${pin[@]}"
    run_netprof "$work/netprof.$run.json" --local-pair --redis "$server" \
      --mode ping-pong -s "$payload" --count "$iterations" --warmup-count "$warmup" "${pin[@]}"
  fi
  if [[ $measure != ping-pong ]]; then
    # The same bytes, the same 0.5 s warm-up (netprof's default), the same probes echoed.
    run_limited "$limit" "$work/bare_stream.$run.json" "$bare_stream" --server "$server" \
      --size "$stream_bytes" --echo-size "$echo_bytes" --seconds "$seconds" "${pin[@]}"
    run_netprof "$work/netprof_stream.$run.json" --local-pair --redis "$server" \
      -s "$payload_stream" -t "$seconds" "${pin[@]}"
  fi
done

rows=()
[[ $measure == stream ]] || rows+=("ping-pong vs bare hiredis|ns|at_most|1.10|$(runs_of netprof publisher.latency.one_way_ns.p50)|$(runs_of bare one_way_p50_ns)")
[[ $measure == ping-pong ]] || rows+=("stream vs bare hiredis|msg/s|at_least|0.90|$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)|$(runs_of bare_stream messages_per_second)")
broker_results "${rows[@]}"

bench_finish
