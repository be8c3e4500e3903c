#!/usr/bin/env bash
# netprof over eProsima Fast DDS against a bare Fast DDS ping-pong, interleaved in one run, both
# on the same loopback participant (UDPv4 on 127.0.0.1 alone, no shared memory, no multicast:
# netprof's --fastdds-loopback), the same type wire form and the same QoS (reliable,
# keep-last 16, volatile):
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --local-pair --fastdds --mode ping-pong
#              -s 64 (its header + 64 B out, its echo back) and of bare_fastdds_pingpong
#              (transports/fastdds/bench/bare_fastdds_pingpong.cpp) sending the same bytes;
#              target netprof <= 1.10x
#   stream:    received messages/s of netprof --local-pair --fastdds --fastdds-history keep-all
#              -s 128 -q (1,024 messages' worth) and of bare_fastdds_stream (the same QoS:
#              reliable, keep-all, 1,024 samples) sending the same bytes for the same time;
#              target netprof >= 0.90x. The depth must match: Fast DDS takes more slowly from a
#              deeper history (netprof's default -q, 1,000,000 B, is 5,556 samples of 180 B, and
#              ran at a third of the rate of 1,024 on the test host)
# --fastdds-notify picks how both hear of samples (netprof's --fastdds-notify and the bare
# program's --notify): waitset (the default, each process's own thread sleeps in a WaitSet) or
# listener (Fast DDS's receive thread takes each sample and the ponger answers there).
# Every round runs with the CPUs idling as the host set them and again with idle CPUs polling
# (--idle both; scripts/bench/cpu_idle_lib.sh): where idle vCPUs halt at once, a wake-up on a
# halted vCPU is most of a round trip, and an unpinned pair's threads decide how many they pay.
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   transports/fastdds/bench/bench_fastdds.sh [BUILD_DIR] [--repeat N] [--iterations N]
#       [--cpu A,B|none] [--fastdds-notify waitset|listener] [--seconds S] [--no-stream]
#       [--idle host|poll|both] [--placement most|near|far]
#
# Every measurement is repeated --repeat times (5), bare and netprof interleaved, and the medians
# compared, because one run on a shared VM swings by 20-40%; only the rounds on the placement of
# the vCPUs most of them held count, or the nearest or farthest with --placement near|far
# (bench/cache_line_pingpong's floor before and after each round, between CPUs 0 and 1 when
# unpinned; a verdict needs 3). BUILD_DIR (default ./build) must hold a Release build with the
# benchmarks. Fast DDS runs threads of its own beside each process's: pin with --cpu only when
# the host has cores to spare for them.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$bench_lib_dir/cpu_idle_lib.sh"
bench_common_options repeat=5 iterations=20000 cpu_or_none placement
bench_option --fastdds-notify notify=waitset 'waitset|listener' choice
bench_option --seconds seconds=3 S '^[1-9][0-9]?$' "1 to 99"
bench_flag --no-stream stream=1 0
bench_idle_option
bench_parse_options "$@"

bench_begin bench_fastdds bare=bare_fastdds_pingpong bare_stream=bare_fastdds_stream \
  floor=cache_line_pingpong
min_kept=3 # rounds on one placement of the vCPUs a verdict needs
payload=64
payload_stream=128
keep_all_samples=1024 # bare_fastdds_stream's keep-all bound
limit=$(netprof_deadline 60)
out_bytes=$((payload + header))
choose_idles "$idle" "$cpus"

echo "host: $(bench_host), $host_idle, Fast DDS $(package_version libfastrtps2.9)"
echo "loopback only (UDPv4 on 127.0.0.1, no SHM, no multicast); reliable keep-last:16; notify: $notify; cpus: $cpus"
echo "$out_bytes B out, $echo_bytes B back (netprof -s $payload)"
echo

for ((run = 1; run <= repeat; run++)); do
  for idle_state in $idles; do
    measure_floor "floor_before.$idle_state.$run"
    enter_idle "$idle_state" "$cpus"
    run_limited "$limit" "$work/bare.$idle_state.$run.json" "$bare" --size "$out_bytes" \
      --echo-size "$echo_bytes" --iterations "$iterations" --warmup "$warmup" --notify "$notify" \
      "${pin[@]}"
    run_netprof "$work/netprof.$idle_state.$run.json" --local-pair --fastdds \
      --fastdds-notify "$notify" --fastdds-history keep-last \
      --mode ping-pong -s "$payload" --count "$iterations" --warmup-count "$warmup" "${pin[@]}"
    if ((stream)); then
      run_limited "$limit" "$work/bare_stream.$idle_state.$run.json" "$bare_stream" \
        --size "$((payload_stream + header))" --seconds "$seconds" --warmup 0.5
      run_netprof "$work/netprof_stream.$idle_state.$run.json" --local-pair --fastdds \
        --fastdds-history keep-all -s "$payload_stream" \
        -q "$((keep_all_samples * (payload_stream + header)))" -t "$seconds" --warmup-time 0.5
    fi
    restore_idle
    measure_floor "floor_after.$idle_state.$run"
  done
done
warn_unless_release "$work/netprof.${idles%% *}.1.json"

# Every row holds only the rounds on the placement of the vCPUs most of them held.
rows=()
placements=()
for idle_state in $idles; do
  label=$(idle_label "$idle_state")
  series=("$(runs_of "netprof.$idle_state" publisher.latency.one_way_ns.p50)"
    "$(runs_of "bare.$idle_state" one_way_p50_ns)")
  if ((stream)); then
    series+=("$(runs_of "netprof_stream.$idle_state" \
      subscribers.0.throughput.messages_per_second)" \
      "$(runs_of "bare_stream.$idle_state" messages_per_second)")
  fi
  mapfile -t kept < <(kept_on_one_placement "$repeat" "$idle_state" "$min_kept" "${series[@]}")
  rows+=("ping-pong vs bare Fast DDS ($notify), $label|ns|at_most|1.10|${kept[0]}|${kept[1]}")
  if ((stream)); then
    row="stream received, -s $payload_stream, keep-all, $label"
    rows+=("$row|msg/s|at_least|0.90|${kept[2]}|${kept[3]}")
  fi
  placements+=("  $label: ${kept[-1]}")
done
echo "one-way p50 = RTT p50 / 2; medians of the rounds on $(judged_placement "$repeat")"
echo "(cache_line_pingpong's floor before and after each round);" \
  "load average now $(cut -d' ' -f1-3 /proc/loadavg):"
printf '%s\n' "${placements[@]}"
"$python" "$table" "${rows[@]}"

bench_finish
