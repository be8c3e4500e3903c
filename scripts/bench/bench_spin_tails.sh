#!/usr/bin/env bash
# Spin ping-pong at p99 as at p50 (issue 29's target): for udp, tcp, uds, mq, nng, zmq and
# iceoryx, netprof --local-pair --mode ping-pong --wait-strategy spin -s 64 against the bare
# program of bench/ (no netprof code) sending and echoing as many bytes, pinned alike, rounds
# interleaved (bare, netprof, next transport ...). Prints the one-way p50 and p99 of each side
# and their ratios, target <= 1.10x at both. The ratio of RTT p99s is the ratio of one-way p99s
# (both halve), so the bare programs' rtt_p99_ns is compared with netprof's RTT p99. A missed
# target is reported, never an error: the exit status is 0 unless a run crashed or timed out.
# Below the table, for scale: how much of netprof's RTT p50 is its subscriber's turnaround (its
# own work from a probe's arrival stamp to its echo's), which a bare ponger does not do.
# Each pair (bare, then netprof) runs between two one-line floors (bench/cache_line_pingpong):
# the host moves the vCPUs between placements at any moment, and every latency moves with them,
# so a pair during which the floor moved is left out, and of the rest only the runs on the
# placement most of them held (--placement near|far: the nearest or the farthest) are compared
# (scripts/bench/placement_runs.py), at least 3 of them or no verdict; the script says which
# placement that was and what it left out.
#
#   scripts/bench/bench_spin_tails.sh [BUILD_DIR] [--rounds N] [--iterations N] [--cpu A,B]
#       [--transports LIST] [--placement most|near|far]
#
# Same number of round trips both sides (--iterations, 20,000; a tenth more as warm-up), so the
# p99 of each rests on as many samples. Every bare program spins as netprof does (nng's polls
# nng_recv with NNG_FLAG_NONBLOCK and yields between looks, as netprof's nng endpoint does: nng's
# own threads do the I/O); the bare udp one echoes the whole datagram (as bench_udp_pingpong.sh
# does). iceoryx needs iox-roudi: one already running is used,
# else one is started here and stopped by its PID. BUILD_DIR (default ./build) must hold a
# Release build with the benchmarks (NETPROF_BUILD_BENCH=ON).

set -euo pipefail

build_dir=./build
rounds=5 # interleaved rounds; the host may move the vCPUs during some
iterations=20000
cpus=0,1
payload=64
target=1.10
min_kept=3 # runs on one placement a verdict needs
transports=udp,tcp,uds,mq,nng,zmq,iceoryx

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
bench_common_options rounds iterations cpu placement
bench_option --transports transports LIST '^[a-z]+(,[a-z]+)*$' "a comma-separated list of transports"
bench_parse_options "$@"
IFS=, read -r -a chosen <<<"$transports"
for transport in "${chosen[@]}"; do
  [[ ,udp,tcp,uds,mq,nng,zmq,iceoryx, == *",$transport,"* ]] ||
    { echo "--transports: '$transport' is not one of udp,tcp,uds,mq,nng,zmq,iceoryx" >&2; exit 2; }
done

netprof=$build_dir/netprof
python=/usr/bin/python3
table=$bench_lib_dir/ratio_table.py

source "$bench_lib_dir/roudi_lib.sh"

bare_of()
{
  case $1 in
  iceoryx) echo "$build_dir/bench/iceoryx_pingpong" ;;
  *) echo "$build_dir/bench/bare_$1_pingpong" ;;
  esac
}

floor=$build_dir/bench/cache_line_pingpong
binaries=("$netprof" "$floor")
for transport in "${chosen[@]}"; do binaries+=("$(bare_of "$transport")"); done
require_binaries "${binaries[@]}"
bench_start bench_spin_tails
trap 'stop_roudi; bench_cleanup' EXIT

header=$(netprof_header_bytes "$netprof")
echo_bytes=$(netprof_echo_bytes "$netprof")
wire=$((payload + header))
limit=$(netprof_deadline 60)
[[ ,$transports, == *,iceoryx,* ]] && start_roudi

# The bare program's arguments and netprof's transport options, per transport.
bare_arguments()
{
  local common=(--iterations "$iterations" --warmup "$warmup" --cpu "$cpus")
  case $1 in
  udp) echo "--size $wire --wait spin ${common[*]}" ;;
  tcp) echo "--size $((wire + 8)) --echo-size $((echo_bytes + 8)) --wait spin ${common[*]}" ;; # + frames
  uds) echo "--type seqpacket --size $wire --echo-size $echo_bytes --wait spin ${common[*]}" ;;
  mq) echo "--size $wire --echo-size $((echo_bytes + 8)) --wait spin ${common[*]}" ;; # + its echo frame
  nng) echo "--size $wire --echo-size $echo_bytes --transport tcp --wait spin ${common[*]}" ;;
  zmq) echo "--size $wire --echo-size $echo_bytes --wait spin ${common[*]}" ;; # xpub-xsub, as netprof
  iceoryx) echo "--size $wire --echo-size $echo_bytes ${common[*]}" ;;
  esac
}

netprof_transport()
{
  case $1 in
  udp) echo "" ;;
  tcp) echo "--tcp-nodelay on" ;; # selects tcp, as bench_tcp.sh
  uds) echo "--uds-type seqpacket" ;; # selects uds, as bench_uds.sh
  mq) echo "--mq" ;;
  nng) echo "--nng tcp://127.0.0.1:0 --nng-pattern pair" ;;
  zmq) echo "--zmq tcp://127.0.0.1:*" ;;
  iceoryx) echo "--iceoryx" ;;
  esac
}

read -r load1 load5 load15 _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load average $load1 $load5 $load15 (before)"
echo "spin ping-pong, pinned: publisher/pinger on CPU ${cpus%,*}, subscriber/ponger on CPU ${cpus#*,};"
echo "$iterations round trips (+$warmup warm-up) per run, $rounds interleaved rounds; $wire B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((round = 1; round <= rounds; round++)); do
  for transport in "${chosen[@]}"; do
    measure_floor "floor_before.$transport.$round"
    # shellcheck disable=SC2046  # the argument lists are words on purpose
    run_limited "$limit" "$work/bare.$transport.$round.json" "$(bare_of "$transport")" \
      $(bare_arguments "$transport")
    # shellcheck disable=SC2046
    tolerated_statuses=1 run_limited "$limit" "$work/netprof.$transport.$round.out" "$netprof" \
      --local-pair $(netprof_transport "$transport") --mode ping-pong --wait-strategy spin \
      -s "$payload" --count "$iterations" --warmup-count "$warmup" --cpu "$cpus" --quiet \
      --json "$work/netprof.$transport.$round.json"
    measure_floor "floor_after.$transport.$round"
  done
done
warn_unless_release "$work/netprof.${chosen[0]}.1.json"

# Each transport's rows hold only its runs on the placement most of them held.
rows=()
placements=()
for transport in "${chosen[@]}"; do
  mapfile -t kept < <(kept_on_one_placement "$rounds" "$transport" "$min_kept" \
    "$(figures_of_runs "$rounds" "netprof.$transport" publisher.latency.one_way_ns.p50)" \
    "$(figures_of_runs "$rounds" "bare.$transport" one_way_p50_ns)" \
    "$(figures_of_runs "$rounds" "netprof.$transport" publisher.latency.rtt_ns.p99)" \
    "$(figures_of_runs "$rounds" "bare.$transport" rtt_p99_ns)")
  rows+=("$transport p50|ns|at_most|$target|${kept[0]}|${kept[1]}")
  rows+=("$transport p99 (RTT)|ns|at_most|$target|${kept[2]}|${kept[3]}")
  placements+=("  $transport: ${kept[4]}")
done
read -r load1 load5 load15 _ </proc/loadavg
echo "one-way p50 = RTT p50 / 2; p99 rows compare RTT p99 (the same ratio as one-way); medians of"
echo "the rounds on one placement of the vCPUs (cache_line_pingpong's one-way floor before and after each pair):"
printf '%s\n' "${placements[@]}"
"$python" "$table" "${rows[@]}"
# What of each netprof round trip is its own subscriber's work (t3 - t2), for scale beside the
# ratios: a bare ponger has none of it.
for transport in "${chosen[@]}"; do
  "$python" - "$transport" \
    "$(figures_of_runs "$rounds" "netprof.$transport" subscribers.0.latency.cross_clock.turnaround_ns.p50)" \
    "$(figures_of_runs "$rounds" "netprof.$transport" publisher.latency.rtt_ns.p50)" <<'EOF'
import statistics, sys
transport, turnarounds, rtts = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
pairs = [(float(t), float(r)) for t, r in zip(turnarounds, rtts) if "n/a" not in (t, r)]
if pairs:
    turnaround = statistics.median(t for t, _ in pairs)
    rtt = statistics.median(r for _, r in pairs)
    print(f"  {transport}: netprof's subscriber turnaround p50 {turnaround:g} ns of its RTT p50"
          f" {rtt:g} ns ({100 * turnaround / rtt:.1f}%), medians")
EOF
done
echo "load average $load1 $load5 $load15 (after)"

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
