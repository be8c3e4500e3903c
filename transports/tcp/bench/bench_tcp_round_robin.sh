#!/usr/bin/env bash
# netprof --fanout round-robin over TCP against bench/bare_tcp_round_robin (no netprof code):
# RMR's experiment, one sender dealing messages in turn to N receivers, --count messages in
# all. Both as separate processes: the publisher (the bare sender) pinned to the first CPU of
# --cpu, every subscriber (bare receiver) to the second. The figure is the sender's rate:
# measured messages over the time from the first measured send to the last. Each round runs bare
# then netprof, interleaved; medians compared. The target of issue 33 reads "round-robin over TCP
# to 5 subscribers, 100,000 messages: each receives 20,000 +- 1", which tests/e2e/test_fanout.py
# checks; this script says what netprof costs doing it (a reference row: no target).
#
#   transports/tcp/bench/bench_tcp_round_robin.sh [BUILD_DIR] [--repeat N] [--count N]
#       [--receivers N] [--cpu A,B]
#
# Like for like: -s 128 is 188 B frames (netprof's 52 B header, the payload and its 8 B frame
# header), -q's 1000000 B socket buffers both ends, --warmup-time's 0.5 s. netprof also sends
# 1,000 probes a second and reads their echoes. Prints figures; the exit status is 0 unless a
# run crashed or timed out. See docs/methodology.md (round-robin fan-out).

set -euo pipefail

frame=8 # netprof's frame header over TCP

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/round_robin_lib.sh"
round_robin_options "$@"

bench_begin bench_tcp_round_robin bare=bare_tcp_round_robin
echo "host: $(bench_host)"
round_robin_begin
echo "like for like: -s $payload is $((payload + header + frame)) B frames; $count messages dealt in turn"
echo

# One netprof group: N subscribers started first, then the publisher; the subscribers' ends
# are awaited (each has its own deadline) so no round overlaps the next.
measure_netprof()
{
  local json=$1 port i pids=()
  port=$(bench_free_port)
  for ((i = 1; i <= receivers; i++)); do
    timeout --kill-after=5 "$limit" "$netprof" -i "$i" --tcp "127.0.0.1:$port" --quiet \
      --cpu "${cpus#*,}" --wait 20 >"$work/sub.$i.out" 2>&1 &
    pids+=($!)
  done
  run_netprof "$json" -i 0 --tcp "127.0.0.1:$port" --subscribers "$receivers" \
    --fanout round-robin --count "$count" -s "$payload" -q "$queue_length" \
    --warmup-time "$warmup_seconds" --cpu "${cpus%,*}" --wait 20
  for i in "${pids[@]}"; do wait "$i" || true; done
}

# netprof deals in turn itself, so each subscriber's share is what it was dealt.
dealt_in_turn_round()
{
  echo "shares $("$python" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(sorted(s["messages_owed"] for s in d["subscribers"]), "lost", sum(s["lost"] for s in d["subscribers"]),
          "pushed back", d["publisher"]["send_accounting"]["pushed_back"], d["result"]["status"])
except (OSError, ValueError, KeyError):
    print("n/a")' "$work/netprof.$1.json")"
}

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --receivers "$receivers" --count "$count" \
    --size $((payload + header + frame)) --warmup "$warmup_seconds" --buffer "$queue_length" \
    --cpu "$cpus"
  measure_netprof "$work/netprof.$run.json"
done
round_robin_report tcp dealt_in_turn_round
bench_finish
