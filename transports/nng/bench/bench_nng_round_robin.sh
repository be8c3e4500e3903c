#!/usr/bin/env bash
# netprof --fanout round-robin over NNG push/pull against bench/bare_nng_round_robin (no netprof
# code): RMR's experiment, NNG's half. One sender whose push0 deals messages to N receivers,
# --count messages in all, each to the next receiver ready for one. Both as separate processes:
# the publisher (the bare sender) pinned to the first CPU of --cpu, every subscriber (bare
# receiver) to the second. The figure is the sender's rate: measured messages over the time from
# the first measured send to the last. Each round runs bare then netprof, interleaved; medians
# compared. A reference row: the issue sets no target for it (the NNG stream's 0.90x target is
# bench_nng.sh's).
#
#   transports/nng/bench/bench_nng_round_robin.sh [BUILD_DIR] [--repeat N] [--count N]
#       [--receivers N] [--cpu A,B]
#
# Like for like: -s 128 is 180 B messages (netprof's 52 B header and the payload; NNG frames
# both with 8 B), -q 1000000 is the 5,556-message queues netprof asks of NNG, --warmup-time's
# 0.5 s. netprof also sends 1,000 probes a second and reads their echoes. Prints figures; the
# exit status is 0 unless a run crashed or timed out. See docs/methodology.md (round-robin
# fan-out).

set -euo pipefail

repeat=3
count=1000000
receivers=5
payload=128
queue_length=1000000
warmup_seconds=0.5

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat cpu
bench_option --count count N positive
bench_option --receivers receivers N '^([1-9]|[1-5][0-9]|6[0-4])$' "1 to 64"
bench_parse_options "$@"

bench_begin bench_nng_round_robin bare=bare_nng_round_robin
limit=$((60 + count / 10000))
message=$((payload + header))
queue_messages=$(((queue_length + message - 1) / message))
echo "host: $(bench_host), libnng $(package_version libnng1)"
echo "pinned: sender on CPU ${cpus%,*}, all $receivers receivers on CPU ${cpus#*,}; $repeat interleaved rounds"
echo "like for like: -s $payload is $message B messages, queues of $queue_messages; $count messages dealt by push0"
echo

# One netprof group: N subscribers started first, then the publisher; the subscribers' ends
# are awaited (each has its own deadline) so no round overlaps the next.
measure_netprof()
{
  local json=$1 url i pids=()
  url="tcp://127.0.0.1:$(bench_free_port tcp 3)"
  for ((i = 1; i <= receivers; i++)); do
    timeout --kill-after=5 "$limit" "$netprof" -i "$i" --nng "$url" --nng-pattern pushpull \
      -q "$queue_length" --quiet --cpu "${cpus#*,}" --wait 20 >"$work/sub.$i.out" 2>&1 &
    pids+=($!)
  done
  run_netprof "$json" -i 0 --nng "$url" --nng-pattern pushpull --subscribers "$receivers" \
    --fanout round-robin --count "$count" -s "$payload" -q "$queue_length" \
    --warmup-time "$warmup_seconds" --cpu "${cpus%,*}" --wait 20
  for i in "${pids[@]}"; do wait "$i" || true; done
}

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --receivers "$receivers" --count "$count" \
    --size "$message" --warmup "$warmup_seconds" --queue "$queue_messages" --cpu "$cpus"
  measure_netprof "$work/netprof.$run.json"
done
warn_unless_release "$work/netprof.1.json"

netprof_rates=$(runs_sender_rate netprof)
for ((run = 1; run <= repeat; run++)); do
  echo "round $run: bare shares $(field "$work/bare.$run.json" least_share)-$(field "$work/bare.$run.json" most_share); netprof $(dealt_shares "$work/netprof.$run.json")"
done
echo
echo "round-robin to $receivers over nng push0, $count messages, -s $payload, vs bare_nng_round_robin: the sender's messages per second; medians of $repeat rounds; ratio = netprof / bare"
"$python" "$table" "nng push0 round-robin to $receivers|msg/s|reference||$netprof_rates|$(runs_of bare messages_per_second)"
bench_finish
