#!/usr/bin/env bash
# Honest pacing (issue 29): netprof paced at --send-hz (1 kHz by default) over loopback UDP
# (or --transport tcp|uds|mq), pinned, for each --pace, against an unpaced blocking ping-pong of
# the same run and transport. A probe at
# 1 kHz finds an idle path, as a ping-pong does, so once the pacer keeps its schedule the
# corrected RTT (timed from each probe's due time) comes close to the ping-pong's. Targets:
# corrected RTT p50 <= 1.3x the blocking ping-pong RTT p50, and pacer lateness p50 <= 2 us,
# with the default --pace. Each measurement is repeated and interleaved (medians compared).
# Over UDP the same bound is also checked against bench/bare_udp_pingpong paced at the same rate
# (--pace-hz: asleep until each due time, timer slack 1 ns): how much slower a round trip that
# finds an idle path is on this host, with no netprof code, is the host's, not netprof's. (The
# other transports' bare programs have no pace.)
# Everything runs with the CPUs idling as the host set them and again polling when idle
# (--idle both, cpu_idle_lib.sh, polling for two periods before halting): a paced side idles a
# whole period between probes, so where idle vCPUs halt at once each paced probe pays a halted
# vCPU's wake-up that a back-to-back ping-pong mostly does not (docs/methodology.md, "Idle CPUs").
# Prints figures; a missed target is a verdict, not an error.
#
#   scripts/bench/paced_vs_pingpong.sh [BUILD_DIR] [--repeat N] [--time SECONDS] [--rate HZ]
#       [--cpu A,B] [--idle host|poll|both] [--transport udp|tcp|uds|mq]
#
# BUILD_DIR (default ./build) must hold a Release netprof and its benchmarks.

set -euo pipefail

build_dir=./build
repeat=3
seconds=2
rate=1000
cpus=0,1
paces="hybrid sleep spin"
transport=udp

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
source "$bench_lib_dir/cpu_idle_lib.sh"
bench_common_options repeat time cpu
bench_option --rate rate HZ '^[1-9][0-9]*$' "a whole number of Hz"
bench_option --transport transport 'udp|tcp|uds|mq' choice
bench_idle_option
bench_parse_options "$@"
halt_poll_ns=$((2 * 1000000000 / rate)) # idle CPUs poll through a whole period

netprof=$build_dir/netprof
bare=$build_dir/bench/bare_udp_pingpong
python=/usr/bin/python3
table=$bench_lib_dir/ratio_table.py

# netprof's options for the transport, as the other benchmark scripts pick them.
case $transport in
udp) transport_options=() ;;
tcp) transport_options=(--tcp-nodelay on) ;;
uds) transport_options=(--uds-type seqpacket) ;;
mq) transport_options=(--mq) ;;
esac
with_bare=$([[ $transport == udp ]] && echo yes || echo no)

require_binaries "$netprof" $([[ $with_bare == yes ]] && echo "$bare")
bench_start paced_vs_pingpong
limit=$(netprof_deadline "$seconds")
choose_idles "$idle" "$cpus"

echo "host: $(uname -sr), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $host_idle"
echo "$transport local pair pinned to CPUs $cpus; paced: --send-hz $rate (probes at $((rate < 1000 ? rate : 1000)) Hz); -t $seconds; $repeat interleaved runs each"
echo

for ((run = 1; run <= repeat; run++)); do
  for idle_state in $idles; do
    enter_idle "$idle_state" "$cpus"
    tolerated_statuses=1 run_limited "$limit" "$work/pingpong.$idle_state.$run.out" "$netprof" \
      --local-pair "${transport_options[@]}" --mode ping-pong --wait-strategy block --cpu "$cpus" \
      -t "$seconds" --quiet --json "$work/pingpong.$idle_state.$run.json"
    # Like for like: netprof's message is its header and the 64 B payload; probes only, at --rate.
    for bare_rate in $([[ $with_bare == yes ]] && echo 0 "$rate"); do
      run_limited "$limit" "$work/bare.$idle_state.$bare_rate.$run.json" "$bare" --size 116 \
        --warmup 200 --iterations "$(awk -v r="$rate" -v t="$seconds" 'BEGIN { printf "%d", r * t }')" \
        --cpu "$cpus" $( ((bare_rate > 0)) && echo --pace-hz "$bare_rate")
    done
    for pace in $paces; do
      tolerated_statuses=1 run_limited "$limit" "$work/paced.$idle_state.$pace.$run.out" "$netprof" \
        --local-pair "${transport_options[@]}" --send-hz "$rate" --pace "$pace" --cpu "$cpus" \
        -t "$seconds" --quiet --json "$work/paced.$idle_state.$pace.$run.json"
    done
    restore_idle
  done
done

for idle_state in $idles; do
  echo "=== $(idle_label "$idle_state")$([[ $idle_state == host ]] || echo ": idle CPUs poll for $((halt_poll_ns / 1000)) us before halting")"
  pingpong=$(runs_of "pingpong.$idle_state" publisher.latency.rtt_ns.p50)
  rows=()
  for pace in $paces; do
    rows+=("RTT p50, --pace $pace (corrected)|ns|at_most|1.30|$(runs_of "paced.$idle_state.$pace" publisher.latency.rtt_ns.p50)|$pingpong")
    rows+=("RTT p50, --pace $pace (uncorrected)|ns|at_most|1.30|$(runs_of "paced.$idle_state.$pace" publisher.latency.rtt_uncorrected_ns.p50)|$pingpong")
  done
  echo "paced RTT p50 against the blocking ping-pong's RTT p50 (the baseline column); medians of $repeat runs"
  "$python" "$table" "${rows[@]}"
  echo
  if [[ $with_bare == yes ]]; then
    bare_pingpong=$(runs_of "bare.$idle_state.0" rtt_p50_ns)
    bare_paced=$(runs_of "bare.$idle_state.$rate" rtt_p50_ns)
    rows=("bare program, paced at $rate Hz, against itself back to back|ns|at_most|1.30|$bare_paced|$bare_pingpong")
    for pace in $paces; do
      rows+=("netprof --pace $pace (corrected) against the bare paced program|ns|at_most|1.30|$(runs_of "paced.$idle_state.$pace" publisher.latency.rtt_ns.p50)|$bare_paced")
    done
    echo "like for like: the bare blocking UDP program (bench/bare_udp_pingpong --size 116), back to back and paced at $rate Hz"
    "$python" "$table" "${rows[@]}"
    echo
  fi
  echo "pacer lateness (actual send minus due time), medians of $repeat runs; target p50 <= 2 us for hybrid (the default)"
  for pace in $paces; do
    "$python" - "$pace" "$(runs_of "paced.$idle_state.$pace" publisher.pacer_lateness_ns.p50)" \
      "$(runs_of "paced.$idle_state.$pace" publisher.pacer_lateness_ns.p99)" \
      "$(runs_of "paced.$idle_state.$pace" resources.process.cpu_user_seconds)" <<'PY'
import statistics, sys
def med(text):
    values = [float(v) for v in text.split() if v not in ("n/a", "None")]
    return statistics.median(values) if values else None
pace, p50, p99, cpu = sys.argv[1], med(sys.argv[2]), med(sys.argv[3]), med(sys.argv[4])
shown = lambda ns: "n/a" if ns is None else f"{ns / 1e3:.2f} us"
verdict = "" if pace != "hybrid" or p50 is None else ("  PASS" if p50 <= 2000 else "  MISS")
print(f"  --pace {pace:6}  lateness p50 {shown(p50):>10}  p99 {shown(p99):>10}  "
      f"publisher user CPU {'n/a' if cpu is None else f'{cpu:.2f} s'}{verdict}")
PY
  done
  echo
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
