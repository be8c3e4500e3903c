#!/usr/bin/env bash
# Like-for-like echoes (issue 29): netprof ping-pong with --echo full (the whole message back,
# as sockperf echoes) against `sockperf ping-pong` and `sockperf ping-pong --tcp` (server:
# `sockperf server`), UDP and TCP on loopback, pinned, interleaved, in one run. Target: netprof's
# one-way p50 at most 1.10x sockperf's. Same bytes both ways: sockperf -m is netprof's message
# (its header + -s, and TCP's 8-byte frame), and netprof's echo is as large as its probe.
# Each pair runs with the CPUs idling as the host set them and polling when idle (--idle both,
# cpu_idle_lib.sh): where idle CPUs halt, both sides' figures are mostly the wake-up of a halted
# CPU, which grows with how long each had been idle (blocking_vs_bare.sh). Each pair (netprof,
# then sockperf) runs between two one-line floors (bench/cache_line_pingpong), and a row's
# median holds only the runs on the placement of the vCPUs most of them held (--placement
# near|far: the nearest or the farthest), at least 3 of them or no verdict (placement_runs.py):
# runs split between placements read 0.94x or 1.30x.
# Prints the load average, the medians and the ratios; a missed target is reported, never an
# error: the exit status is 0 unless a run crashed or timed out.
#
#   scripts/bench/bench_echo_full.sh [BUILD_DIR] [--repeat N] [--time SECONDS] [--cpu A,B]
#       [--idle host|poll|both] [--placement most|near|far]
#
# BUILD_DIR (default ./build) holds netprof; sockperf comes from Debian (apt-get install sockperf).

set -euo pipefail

build_dir=./build
repeat=5
min_kept=3 # runs on one placement a verdict needs
seconds=2
cpus=0,1
payload=64
frame=8 # netprof's frame header over a stream

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
source "$bench_lib_dir/cpu_idle_lib.sh"
bench_common_options repeat whole_time cpu placement
bench_idle_option
bench_parse_options "$@"
sender_cpu=${cpus%,*}
receiver_cpu=${cpus#*,}

netprof=$build_dir/netprof
python=/usr/bin/python3
table=$bench_lib_dir/ratio_table.py

require_binaries "$netprof" "$build_dir/bench/cache_line_pingpong"
command -v sockperf >/dev/null || { echo "sockperf not found (apt-get install sockperf)" >&2; exit 1; }
bench_start bench_echo_full
choose_idles "$idle" "$cpus"

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline "$seconds")
udp_wire=$((payload + header))
tcp_wire=$((payload + header + frame))
echo "host: $(uname -sr), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $host_idle; sockperf $(sockperf --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1)"
echo "loopback; netprof --echo full -s $payload: $udp_wire B each way over UDP, $tcp_wire B over TCP (frame included)"
echo "client/publisher on CPU $sender_cpu, server/subscriber on CPU $receiver_cpu; blocking receives; $repeat interleaved runs"
echo

# sockperf's server on the receiver's CPU, its ping-pong client on the sender's; $1: udp or tcp.
sockperf_pp()
{
  local protocol=$1 size=$2 out=$3 port status=0 flags=()
  [[ $protocol == tcp ]] && flags=(--tcp)
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  timeout --signal=INT --kill-after=5 $((seconds + 30)) \
    taskset -c "$receiver_cpu" sockperf server "${flags[@]}" -i 127.0.0.1 -p "$port" >"$out.server" 2>&1 &
  local server=$!
  running=("$server")
  sleep 0.5 # the server binds before the client's first message
  timeout --kill-after=5 $((seconds + 30)) taskset -c "$sender_cpu" \
    sockperf ping-pong "${flags[@]}" -i 127.0.0.1 -p "$port" -m "$size" -t "$seconds" >"$out" 2>&1 ||
    status=$?
  bench_stop_server "$server" "$status" "sockperf ping-pong $protocol -m $size"
}

sockperf_p50_ns()
{
  "$python" - "$1" <<'PY'
import re, sys
try:
    text = open(sys.argv[1], errors="replace").read()
    print(float(re.search(r"percentile 50\.000 =\s*([\d.]+)", text).group(1)) * 1e3)
except Exception:
    print("n/a")
PY
}

# netprof's ping-pong over udp or tcp ($1) into the JSON file $2.
netprof_pp()
{
  local protocol=$1 out=$2 transport=()
  [[ $protocol == tcp ]] && transport=(--tcp 127.0.0.1:0)
  tolerated_statuses=1 run_limited "$limit" "$out.out" "$netprof" --local-pair --mode ping-pong \
    --echo full -s "$payload" --cpu "$cpus" -t "$seconds" --quiet --json "$out" "${transport[@]}"
}
# The bytes of a message each way over udp or tcp ($1): what sockperf is given as -m.
wire_of() { if [[ $1 == tcp ]]; then echo "$tcp_wire"; else echo "$udp_wire"; fi; }

for ((run = 1; run <= repeat; run++)); do
  for idle_state in $idles; do
    for protocol in udp tcp; do
      key=$protocol.$idle_state
      measure_floor "floor_before.$key.$run"
      enter_idle "$idle_state" "$cpus"
      netprof_pp "$protocol" "$work/netprof_$key.$run.json"
      sockperf_pp "$protocol" "$(wire_of "$protocol")" "$work/sockperf_$key.$run"
      restore_idle
      measure_floor "floor_after.$key.$run"
    done
  done
done

sockperf_runs()
{
  local name=$1 values=() run
  for ((run = 1; run <= repeat; run++)); do values+=("$(sockperf_p50_ns "$work/$name.$run")"); done
  echo "${values[*]}"
}

first=${idles%% *}.1
echo "echo bytes per probe (netprof, measured): UDP $(fields publisher.echo_bytes_per_echo "$work/netprof_udp.$first.json"), TCP $(fields publisher.echo_bytes_per_echo "$work/netprof_tcp.$first.json") (TCP: the frame not included)"
rows=()
placements=()
for idle_state in $idles; do
  label=$(idle_label "$idle_state")
  for protocol in udp tcp; do
    key=$protocol.$idle_state
    mapfile -t kept < <(kept_on_one_placement "$repeat" "$key" "$min_kept" \
      "$(runs_of "netprof_$key" publisher.latency.one_way_ns.p50)" \
      "$(sockperf_runs "sockperf_$key")")
    row="${protocol^^} --echo full vs sockperf pp$([[ $protocol == udp ]] || echo " --tcp")"
    row+=" -m $(wire_of "$protocol"), $label"
    rows+=("$row|ns|at_most|1.10|${kept[0]}|${kept[1]}")
    placements+=("  ${protocol^^}, $label: ${kept[2]}")
  done
done
echo "one-way latency p50 = RTT p50 / 2; medians of the runs on one placement of the vCPUs"
echo "(cache_line_pingpong's one-way floor before and after each pair); \"idle polls\": idle CPUs"
echo "poll instead of halting"
printf '%s\n' "${placements[@]}"
"$python" "$table" "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
