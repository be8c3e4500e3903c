#!/usr/bin/env bash
# netprof --fanout round-robin over ZeroMQ PUSH/PULL against bench/bare_zmq_round_robin (no
# netprof code): RMR's experiment, ZeroMQ's half. One sender whose PUSH deals messages to N
# receivers, --count messages in all, each to the next receiver in turn. Both as separate
# processes: the publisher (the bare sender) pinned to the first CPU of --cpu, every subscriber
# (bare receiver) to the second. The figure is the sender's rate: measured messages over the
# time from the first measured send to the last. Each round runs bare then netprof, interleaved;
# medians compared. A reference row: the issue sets no target for it.
#
#   transports/zmq/bench/bench_zmq_round_robin.sh [BUILD_DIR] [--repeat N] [--count N]
#       [--receivers N] [--cpu A,B]
#
# Like for like: -s 128 is 180 B messages (netprof's 52 B header and the payload), -q 1000000 is
# the 5,556-message high-water mark and the 1,000,000 B socket buffers netprof asks of ZeroMQ,
# --warmup-time's 0.5 s. netprof also sends 1,000 probes a second to every subscriber over its
# XPUB and reads their echoes. Prints figures; the exit status is 0 unless a run crashed or timed
# out. See docs/methodology.md (round-robin fan-out).

set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/round_robin_lib.sh"
round_robin_options "$@"

bench_begin bench_zmq_round_robin bare=bare_zmq_round_robin
message=$((payload + header))
hwm=$(((queue_length + message - 1) / message))
echo "host: $(bench_host), libzmq $(package_version libzmq5)"
round_robin_begin
echo "like for like: -s $payload is $message B messages, high-water mark $hwm, $queue_length B socket buffers; $count messages dealt by PUSH"
echo

for ((run = 1; run <= repeat; run++)); do
  run_limited "$limit" "$work/bare.$run.json" "$bare" --receivers "$receivers" --count "$count" \
    --size "$message" --warmup "$warmup_seconds" --hwm "$hwm" --buffer "$queue_length" \
    --cpu "$cpus"
  # Each subscriber binds a port of its own, then connects to the publisher's.
  endpoint="tcp://127.0.0.1:$(bench_free_port tcp 2)"
  subscriber_transport=(--zmq "tcp://127.0.0.1:*" --zmq "$endpoint" --zmq-pattern pushpull)
  publisher_transport=(--zmq "$endpoint" --zmq-pattern pushpull)
  round_robin_dealt_group "$work/netprof.$run.json"
done
round_robin_report "zmq PUSH" round_robin_dealt_round
bench_finish
