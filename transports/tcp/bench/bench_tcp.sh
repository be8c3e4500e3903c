#!/usr/bin/env bash
# netprof over raw TCP (--tcp) on loopback against sockperf and a bare C++ baseline, pinned, in
# one run, each measurement repeated and interleaved (medians compared: one run on a shared VM
# swings by 20-40%). The targets of issue 20:
#   ping-pong, blocking: one-way p50 at most 1.05x `sockperf ping-pong --tcp`'s
#   ping-pong, spin:     one-way p50 at most 1.10x bench/bare_tcp_pingpong's (no netprof code)
#   stream, -s 64:       received messages/s at least 1.0x `sockperf throughput --tcp`'s
# Like for like: netprof -s 64 puts its header and 8 bytes of framing in front of the payload, so
# the baselines send that many bytes (asked of the binary); bare_tcp_pingpong echoes what netprof
# echoes (a header and its frame), sockperf echoes the whole message, so netprof's row against
# sockperf runs with --echo full (the same convention). sockperf's throughput mode
# leaves Nagle's algorithm on unless given --tcp-avoid-nodelay (its ping-pong turns it off), so
# each stream row pairs like with like: netprof --tcp-nodelay off against sockperf's default, and
# netprof's default (on) against sockperf --tcp-avoid-nodelay. Prints figures; a missed target
# is reported, never an error: the exit status is 0 unless a run crashed or timed out.
#
#   transports/tcp/bench/bench_tcp.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS]
#       [--cpu A,B]
#
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks; sockperf comes from
# Debian (apt-get install sockperf): without it, its rows are skipped. See docs/transport-tcp.md.

set -euo pipefail

repeat=3
iterations=30000
warmup=3000
payload=64
frame=8 # netprof's frame header over a stream

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat iterations whole_time cpu
bench_parse_options "$@"
sender_cpu=${cpus%,*}
receiver_cpu=${cpus#*,}

bench_begin bench_tcp bare=bare_tcp_pingpong
have_sockperf=1
command -v sockperf >/dev/null || { have_sockperf=0; echo "sockperf not found (apt-get install sockperf): its rows are skipped" >&2; }

limit=$(netprof_deadline "$seconds")
wire=$((payload + header + frame))
echo_bytes=$((echo_bytes + frame))
echo "host: $(bench_host); sockperf $(sockperf --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1 || echo none)"
echo "TCP on 127.0.0.1, TCP_NODELAY on; publisher/pinger/client on CPU $sender_cpu, subscriber/ponger/server on CPU $receiver_cpu"
echo "like for like: netprof -s $payload sends $wire B messages ($header B header, $frame B frame); $repeat interleaved runs each"
echo

# sockperf's server on the receiver's CPU, its client on the sender's; writes the client's
# output to $3 (and the server's beside it) and the PID list is cleaned up by bench_lib.
sockperf_run()
{
  local mode=$1 size=$2 out=$3 port status=0
  shift 3 # what is left goes to the client
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  timeout --signal=INT --kill-after=5 $((seconds + 30)) \
    taskset -c "$receiver_cpu" sockperf server --tcp -i 127.0.0.1 -p "$port" >"$out.server" 2>&1 &
  local server=$!
  running=("$server")
  "$python" -c '
import socket, sys, time
give_up = time.monotonic() + 10
while time.monotonic() < give_up:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)' "$port" || { echo "sockperf server did not start" >&2; ((failures += 1)); }
  timeout --kill-after=5 $((seconds + 30)) taskset -c "$sender_cpu" \
    sockperf "$mode" --tcp -i 127.0.0.1 -p "$port" -m "$size" -t "$seconds" "$@" >"$out" 2>&1 ||
    status=$?
  sleep 0.2 # what is in flight reaches the server before it stops counting
  bench_stop_server "$server" "$status" "sockperf $mode -m $size" "$out"
}

# A figure from a sockperf run's output: the one-way p50 in ns (ping-pong), received msg/s (tp).
sockperf_figure()
{
  "$python" - "$@" <<'PY'
import re, sys
kind, client = sys.argv[1], sys.argv[2]
try:
    text = open(client, errors="replace").read()
    if kind == "pp":
        print(float(re.search(r"percentile 50\.000 =\s*([\d.]+)", text).group(1)) * 1e3)
    else:
        server = open(client + ".server", errors="replace").read()
        received = int(re.search(r"Total (\d+) messages received", server).group(1))
        duration = float(re.search(r"Total of \d+ messages sent in ([\d.]+) sec", text).group(1))
        print(received / duration)
except Exception:
    print("n/a")
PY
}

# netprof's local pair with TCP_NODELAY as $2 (on, off); the rest are its own options.
netprof_run()
{
  local out=$1 no_delay=$2
  shift 2
  run_netprof "$out" --local-pair --tcp-nodelay "$no_delay" -s "$payload" --cpu "$cpus" \
    -t "$seconds" "$@"
}

for ((run = 1; run <= repeat; run++)); do
  for wait_strategy in block spin; do
    run_limited 60 "$work/bare_$wait_strategy.$run.json" "$bare" --size "$wire" \
      --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" \
      --wait "$wait_strategy" --cpu "$cpus"
    netprof_run "$work/netprof_pp_$wait_strategy.$run.json" on --mode ping-pong \
      --wait-strategy "$wait_strategy"
  done
  netprof_run "$work/netprof_stream.$run.json" on
  netprof_run "$work/netprof_stream_nagle.$run.json" off
  if ((have_sockperf)); then
    netprof_run "$work/netprof_pp_block_full.$run.json" on --mode ping-pong \
      --wait-strategy block --echo full
    sockperf_run ping-pong "$wire" "$work/sockperf_pp.$run"
    sockperf_run throughput "$wire" "$work/sockperf_tp.$run"
    sockperf_run throughput "$wire" "$work/sockperf_tp_nodelay.$run" --tcp-avoid-nodelay
  fi
done
warn_unless_release "$work/netprof_stream.1.json"

sockperf_runs()
{
  local kind=$1 name=$2 values=() run
  for ((run = 1; run <= repeat; run++)); do values+=("$(sockperf_figure "$kind" "$work/$name.$run")"); done
  echo "${values[*]}"
}

one_way=publisher.latency.one_way_ns.p50
rate=subscribers.0.throughput.messages_per_second
rows=("ping-pong spin vs bare_tcp_pingpong|ns|at_most|1.10|$(runs_of netprof_pp_spin "$one_way")|$(runs_of bare_spin one_way_p50_ns)"
  "ping-pong block vs bare_tcp_pingpong (reference)|ns|at_most|1.10|$(runs_of netprof_pp_block "$one_way")|$(runs_of bare_block one_way_p50_ns)")
if ((have_sockperf)); then
  rows+=("ping-pong block --echo full vs sockperf pp --tcp -m $wire|ns|at_most|1.05|$(runs_of netprof_pp_block_full "$one_way")|$(sockperf_runs pp sockperf_pp)"
    "stream, Nagle on: --tcp-nodelay off vs sockperf tp --tcp -m $wire|msg/s|at_least|1.0|$(runs_of netprof_stream_nagle "$rate")|$(sockperf_runs tp sockperf_tp)"
    "stream, TCP_NODELAY: default vs sockperf tp --tcp-avoid-nodelay|msg/s|at_least|1.0|$(runs_of netprof_stream "$rate")|$(sockperf_runs tp sockperf_tp_nodelay)")
fi
echo "one-way latency p50 = RTT p50 / 2; rates are messages received per second; medians of $repeat runs"
"$python" "$table" "${rows[@]}"

bench_finish
