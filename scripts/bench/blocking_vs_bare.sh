#!/usr/bin/env bash
# netprof's blocking ping-pong (--wait-strategy block) against each transport's bare blocking
# program (bench/bare_*_pingpong --wait block: a plain blocking recv()/mq_timedreceive()), in
# the same run, pinned, interleaved and repeated (medians compared). The target of issue 29:
# netprof between 0.95x and 1.10x the bare program, for udp, tcp, uds and mq. Under 0.95x means
# netprof does not block as it says (it polled before sleeping until issue 29); over 1.10x is
# netprof's own cost. Like for like: the bare programs send netprof's header and framing in
# front of the payload and echo as many bytes as netprof's echo. With --with-poll-then-block
# the same rows are printed for --wait-strategy poll-then-block, for comparison (no target).
# Each pair (bare, then netprof) runs between two one-line floors (bench/cache_line_pingpong),
# and only the runs on the placement of the vCPUs most of them held (--placement near|far: the
# nearest or the farthest) are compared, at least 3 of them or no verdict
# (scripts/bench/placement_runs.py, as bench_spin_tails.sh): a wake-up across far-apart vCPUs
# costs more, and a median of runs from two placements compares nothing.
# Each pair runs twice (--idle both): with the CPUs idling as the host set them, and polling
# when idle instead of halting (cpu_idle_lib.sh; needs root). On a VM whose idle vCPUs halt, a
# blocking figure is mostly the halted vCPU's wake-up, whose cost grows the longer a side has
# been idle, so a program that stays busy longer after each send (netprof's bookkeeping) can
# read under the bare program; polling when idle, the ratio is netprof's own cost.
# Prints figures; a missed target is a verdict, not an error (exit 0 unless a run crashed).
#
#   scripts/bench/blocking_vs_bare.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS]
#       [--cpu A,B] [--transports LIST] [--with-poll-then-block] [--idle host|poll|both]
#       [--placement most|near|far]
#
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks.

set -euo pipefail

build_dir=./build
repeat=5 # interleaved rounds; the host may move the vCPUs during some
min_kept=3 # runs on one placement a verdict needs
iterations=20000
warmup=2000
seconds=2
cpus=0,1
payload=64
transports="udp tcp uds mq"
strategies="block"

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
source "$bench_lib_dir/cpu_idle_lib.sh"
bench_common_options repeat iterations time cpu placement
bench_option --transports transports LIST '^(udp|tcp|uds|mq)( (udp|tcp|uds|mq))*$' "a space-separated list of udp, tcp, uds, mq"
bench_flag --with-poll-then-block strategies 'block poll-then-block'
bench_idle_option
bench_parse_options "$@"
for transport in $transports; do
  [[ $transport =~ ^(udp|tcp|uds|mq)$ ]] || { echo "--transports takes udp, tcp, uds, mq" >&2; exit 2; }
done

netprof=$build_dir/netprof
python=/usr/bin/python3
table=$bench_lib_dir/ratio_table.py

bare_of() { echo "$build_dir/bench/bare_${1}_pingpong"; }
require_binaries "$netprof" "$build_dir/bench/cache_line_pingpong"
for transport in $transports; do require_binaries "$(bare_of "$transport")"; done
bench_start blocking_vs_bare
choose_idles "$idle" "$cpus"

header=$(netprof_header_bytes "$netprof")
echo_bytes=$(netprof_echo_bytes "$netprof")
limit=$(netprof_deadline "$seconds")
frame=8 # the stream transports' and mq's frame (docs/transport-tcp.md, transports/mq)

# The bare program's size arguments and netprof's transport option, per transport.
bare_sizes()
{
  case $1 in
  udp) echo --size $((payload + header)) ;;
  tcp) echo --size $((payload + header + frame)) --echo-size $((echo_bytes + frame)) ;;
  uds) echo --type seqpacket --size $((payload + header)) --echo-size "$echo_bytes" ;;
  mq) echo --size $((payload + header)) --echo-size $((echo_bytes + frame)) ;;
  esac
}
netprof_transport()
{
  case $1 in
  udp) ;;
  tcp) echo --tcp-nodelay on ;; # a transport's own option selects it for the local pair
  uds) echo --uds-type seqpacket ;;
  mq) echo --mq ;;
  esac
}

echo "host: $(uname -sr), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $host_idle"
echo "pinned: publisher/pinger on CPU ${cpus%,*}, subscriber/ponger on CPU ${cpus#*,}; $repeat interleaved runs each"
echo "bare: $iterations round trips (+$warmup warm-up) --wait block; netprof: --mode ping-pong -s $payload -t $seconds"
echo

for ((run = 1; run <= repeat; run++)); do
  for transport in $transports; do
    for idle_state in $idles; do
      key=$transport.$idle_state
      measure_floor "floor_before.$key.$run"
      enter_idle "$idle_state" "$cpus"
      # shellcheck disable=SC2046  # the size arguments are words
      run_limited 120 "$work/bare.$key.$run.json" "$(bare_of "$transport")" \
        $(bare_sizes "$transport") --iterations "$iterations" --warmup "$warmup" --wait block \
        --cpu "$cpus"
      for strategy in $strategies; do
        # shellcheck disable=SC2046
        tolerated_statuses=1 run_limited "$limit" "$work/netprof.$key.$strategy.$run.out" \
          "$netprof" --local-pair $(netprof_transport "$transport") --mode ping-pong -s "$payload" \
          --wait-strategy "$strategy" --cpu "$cpus" -t "$seconds" --quiet \
          --json "$work/netprof.$key.$strategy.$run.json"
      done
      restore_idle
      measure_floor "floor_after.$key.$run"
    done
  done
done

# Each transport's rows hold only its runs on the placement most of them held.
rows=()
placements=()
for transport in $transports; do
  for idle_state in $idles; do
    key=$transport.$idle_state
    series=()
    for strategy in $strategies; do
      series+=("$(runs_of "netprof.$key.$strategy" publisher.latency.one_way_ns.p50)" \
        "$(runs_of "bare.$key" one_way_p50_ns)")
    done
    mapfile -t kept < <(kept_on_one_placement "$repeat" "$key" "$min_kept" "${series[@]}")
    index=0
    for strategy in $strategies; do
      row="$transport ping-pong, $strategy, $(idle_label "$idle_state")"
      rows+=("$row|ns|between|0.95-1.10|${kept[index]}|${kept[index + 1]}")
      index=$((index + 2))
    done
    placements+=("  $transport, $(idle_label "$idle_state"): ${kept[index]}")
  done
done
echo "one-way p50 (RTT p50 / 2), netprof against the bare blocking program; medians of the runs"
echo "on one placement of the vCPUs (cache_line_pingpong's one-way floor before and after each pair):"
printf '%s\n' "${placements[@]}"
echo "(the target is about the block rows: poll-then-block is expected under 0.95x; \"idle polls\":"
echo " idle CPUs poll instead of halting, so neither side's figure holds a halted CPU's wake-up,"
echo " whose cost grows with how long that side had been idle)"
"$python" "$table" "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
