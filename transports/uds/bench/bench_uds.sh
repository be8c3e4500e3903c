#!/usr/bin/env bash
# netprof over Unix-domain sockets (--uds) against a bare C++ ping-pong over a socketpair of the
# same type (transports/uds/bench/bare_uds_pingpong.cpp, no netprof code), pinned, for both socket types and
# both wait strategies, each measurement repeated and interleaved (medians compared: one run on
# a shared VM swings by 20-40%). The target of issue 20: netprof's ping-pong one-way p50 at most
# 1.10x the bare one's (spin is the row it is about: block measures the kernel's wake-ups). Like
# for like: netprof -s 64 sends its header in front of the payload (and 8 bytes of framing over
# SOCK_STREAM) and echoes a header, so the baseline sends and echoes as many bytes (asked of the
# binary). Prints figures; a missed target is reported, never an error: the exit status is 0
# unless a run crashed or timed out.
#
#   transports/uds/bench/bench_uds.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS]
#       [--cpu A,B]
#
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks. See
# docs/transport-uds.md.

set -euo pipefail

build_dir=./build
repeat=3
iterations=30000
warmup=3000
seconds=2
cpus=0,1
payload=64
target=1.10

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat iterations time cpu
bench_parse_options "$@"

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_uds_pingpong
python=/usr/bin/python3
table=$bench_lib_dir/ratio_table.py

require_binaries "$netprof" "$bare"
bench_start bench_uds

header=$(netprof_header_bytes "$netprof")
echo_bytes=$(netprof_echo_bytes "$netprof") # what a subscriber sends back for each probe
limit=$(netprof_deadline "$seconds")
echo "host: $(uname -sr), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pinned: publisher/pinger on CPU ${cpus%,*}, subscriber/ponger on CPU ${cpus#*,}; $repeat interleaved runs each"
echo "like for like: netprof -s $payload sends $((payload + header)) B records over seqpacket, $((payload + header + 8)) B frames over stream"
echo

for ((run = 1; run <= repeat; run++)); do
  for kind in seqpacket stream; do
    frame=0
    [[ $kind == stream ]] && frame=8
    for wait_strategy in spin block; do
      name=$kind.$wait_strategy
      run_limited 60 "$work/bare.$name.$run.json" "$bare" --type "$kind" \
        --size $((payload + header + frame)) --echo-size $((echo_bytes + frame)) \
        --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" --cpu "$cpus"
      tolerated_statuses=1 run_limited "$limit" "$work/netprof.$name.$run.out" "$netprof" \
        --local-pair --uds-type "$kind" --mode ping-pong -s "$payload" --cpu "$cpus" \
        --wait-strategy "$wait_strategy" -t "$seconds" --quiet --json "$work/netprof.$name.$run.json"
    done
  done
done
if [[ $(field "$work/netprof.seqpacket.spin.1.json" tool.build_type) != Release ]]; then
  echo "note: netprof was not built as Release; its timings are not representative" >&2
fi

runs_of()
{
  local name=$1 path=$2 files=() run
  for ((run = 1; run <= repeat; run++)); do files+=("$work/$name.$run.json"); done
  fields "$path" "${files[@]}"
}

rows=()
for kind in seqpacket stream; do
  for wait_strategy in spin block; do
    name=$kind.$wait_strategy
    rows+=("$kind ping-pong, $wait_strategy|ns|at_most|$target|$(runs_of "netprof.$name" publisher.latency.one_way_ns.p50)|$(runs_of "bare.$name" one_way_p50_ns)")
  done
done
echo "one-way latency p50 = RTT p50 / 2; medians of $repeat runs; the target is about the spin rows"
"$python" "$table" "${rows[@]}"

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
