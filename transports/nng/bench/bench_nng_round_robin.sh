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

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/round_robin_lib.sh"
round_robin_options "$@"

bench_begin bench_nng_round_robin bare=bare_nng_round_robin
message=$((payload + header))
queue_messages=$(((queue_length + message - 1) / message))
echo "host: $(bench_host), libnng $(package_version libnng1)"
round_robin_begin
echo "like for like: -s $payload is $message B messages, queues of $queue_messages; $count messages dealt by push0"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --receivers "$receivers" --count "$count" \
    --size "$message" --warmup "$warmup_seconds" --queue "$queue_messages" --cpu "$cpus"
  url="tcp://127.0.0.1:$(bench_free_port tcp 3)"
  subscriber_transport=(--nng "$url" --nng-pattern pushpull)
  publisher_transport=(--nng "$url" --nng-pattern pushpull)
  round_robin_dealt_group "$work/netprof.$run.json"
done
round_robin_report "nng push0" round_robin_dealt_round
bench_finish
