#!/usr/bin/env bash
# netprof over ZeroMQ (tcp on loopback) against bare cppzmq baselines that use netprof's own
# socket pattern (transports/zmq/bench/bare_zmq_pingpong.cpp, transports/zmq/bench/bare_zmq_stream.cpp: an XPUB and an XSUB
# carrying a back channel, set up as netprof sets them, the same bytes on the wire), pinned and
# unpinned, in one run:
#   ping-pong: one-way p50 (RTT p50 / 2); netprof -s 64, i.e. its header + 64 B out, the header
#              back; target netprof <= 1.10x the bare XPUB/XSUB ping-pong
#   stream:    received messages/s; netprof -s 128 (header + 128 B), dropping at the high-water
#              mark and with --zmq-nodrop; target netprof >= 0.80x the bare XPUB/XSUB stream
# and, for reference, the same bytes over PAIR and PUSH/PULL: what the pattern itself costs.
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   transports/zmq/bench/bench_zmq.sh [BUILD_DIR] [--repeat N] [--iterations N] [--time SECONDS]
#       [--cpu A,B] [--placement pinned|unpinned|both] [--wait block|spin] [--diagnostic]
#
# Every measurement is repeated --repeat times (5), baselines, netprof and placements
# interleaved, and the medians compared, because one run on a shared VM swings by 20-40%.
# --diagnostic adds netprof's streams with --probe-hz 10. BUILD_DIR (default ./build) must hold
# a Release build with the benchmarks. See docs/benchmarks.md for how to read the output.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=5 iterations=30000 time=2 cpu=0,1
bench_option --placement placement=both 'pinned|unpinned|both' choice
bench_option --wait wait_strategy=block 'block|spin' choice
bench_flag --diagnostic diagnostic=0 1
bench_parse_options "$@"
placements=("$placement")
[[ $placement == both ]] && placements=(pinned unpinned)

bench_begin bench_zmq bare_pingpong=bare_zmq_pingpong bare_stream=bare_zmq_stream
payload_pingpong=64
payload_stream=128
queue_length=1000000 # netprof's default -q, from which it derives the high-water mark
limit=$(netprof_deadline "$seconds")
pingpong_wire=$((payload_pingpong + header))
stream_wire=$((payload_stream + header))
hwm=$(((queue_length + stream_wire - 1) / stream_wire)) # netprof's rule; see docs/transport-zmq.md

echo "host: $(bench_host), libzmq $(pkg-config --modversion libzmq 2>/dev/null || echo '?')"
echo "tcp on 127.0.0.1, wait $wait_strategy; pinned = --cpu $cpus (publisher/pinger side, subscriber/ponger side)"
echo "like for like: netprof's header is $header B (asked of the binary), so the baselines send"
echo "$pingpong_wire B pings with $echo_bytes B echoes and $stream_wire B stream messages, HWM $hwm, buffers $queue_length B"
echo

# One round of every measurement on one placement; each file is named PLACEMENT.KIND.RUN.json.
measure()
{
  local where=$1 run=$2 pin=()
  [[ $where == pinned ]] && pin=(--cpu "$cpus")
  local name="$work/$where" netprof_args=(--local-pair --zmq 'tcp://127.0.0.1:*' "${pin[@]}"
    --wait-strategy "$wait_strategy" -q "$queue_length" -t "$seconds")
  local pingpong=("$bare_pingpong" --size "$pingpong_wire" --echo-size "$echo_bytes"
    --iterations "$iterations" --warmup "$warmup" --wait "$wait_strategy" "${pin[@]}")
  local stream=("$bare_stream" --size "$stream_wire" --echo-size "$echo_bytes" --seconds "$seconds"
    --hwm "$hwm" --buffer "$queue_length" --wait "$wait_strategy" "${pin[@]}")

  run_limited "$limit" "$name.bare_pp.$run.json" "${pingpong[@]}"
  run_netprof "$name.netprof_pp.$run.json" "${netprof_args[@]}" --mode ping-pong \
    -s "$payload_pingpong"
  run_limited "$limit" "$name.bare_pair.$run.json" "${pingpong[@]}" --pattern pair

  run_limited "$limit" "$name.bare_drop.$run.json" "${stream[@]}"
  run_netprof "$name.netprof_drop.$run.json" "${netprof_args[@]}" -s "$payload_stream"
  run_limited "$limit" "$name.bare_nodrop.$run.json" "${stream[@]}" --nodrop on
  run_netprof "$name.netprof_nodrop.$run.json" "${netprof_args[@]}" -s "$payload_stream" --zmq-nodrop
  run_limited "$limit" "$name.bare_push.$run.json" "${stream[@]}" --pattern push-pull
  if ((diagnostic)); then
    # netprof's publisher polls its back channel every 2-50 us while a probe is out; at 10 Hz
    # probes that is almost never, and the gap to the rows above is that polling's cost.
    run_netprof "$name.netprof_drop_probe10.$run.json" "${netprof_args[@]}" -s "$payload_stream" \
      --probe-hz 10
    run_netprof "$name.netprof_nodrop_probe10.$run.json" "${netprof_args[@]}" \
      -s "$payload_stream" --zmq-nodrop --probe-hz 10
  fi
}

for ((run = 1; run <= repeat; run++)); do
  for where in "${placements[@]}"; do
    measure "$where" "$run"
  done
done
warn_unless_release "$work/${placements[0]}.netprof_pp.1.json"

target_latency=1.10
target_rate=0.80
for where in "${placements[@]}"; do
  rate=subscribers.0.throughput.messages_per_second
  "$python" - "$where" "$cpus" "$repeat" "$target_latency" "$target_rate" "$payload_pingpong" \
    "$pingpong_wire" "$echo_bytes" "$payload_stream" "$stream_wire" "$hwm" \
    "$(runs_of "$where.bare_pp" one_way_p50_ns)" \
    "$(runs_of "$where.netprof_pp" publisher.latency.one_way_ns.p50)" \
    "$(runs_of "$where.bare_pair" one_way_p50_ns)" \
    "$(runs_of "$where.bare_drop" messages_per_second)" \
    "$(runs_of "$where.netprof_drop" "$rate")" \
    "$(runs_of "$where.bare_nodrop" messages_per_second)" \
    "$(runs_of "$where.netprof_nodrop" "$rate")" \
    "$(runs_of "$where.bare_push" messages_per_second)" \
    "$(runs_of "$where.bare_drop" lost)" \
    "$(runs_of "$where.netprof_drop" subscribers.0.lost)" \
    "$(runs_of "$where.netprof_nodrop" subscribers.0.lost)" \
    "$(runs_of "$where.netprof_drop_probe10" "$rate")" \
    "$(runs_of "$where.netprof_nodrop_probe10" "$rate")" <<'EOF'
import statistics, sys

(where, cpus, repeat, target_latency, target_rate, pp_payload, pp_wire, echo_bytes, st_payload,
 st_wire, hwm, *runs) = sys.argv[1:]
target_latency, target_rate = float(target_latency), float(target_rate)

def numbers(text):
    return [None if word == "n/a" else float(word) for word in text.split()]

(bare_pp, ours_pp, bare_pair, bare_drop, ours_drop, bare_nodrop, ours_nodrop, bare_push,
 bare_drop_lost, ours_drop_lost, ours_nodrop_lost, ours_drop_probe10,
 ours_nodrop_probe10) = (numbers(text) for text in runs)

def median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None

def shown(value, scale=1.0, digits=1):
    return "n/a" if value is None else f"{value / scale:,.{digits}f}"

def times(value):
    return "n/a" if value is None else f"{value:.2f}x"

def ratio(ours, bare):
    o, b = median(ours), median(bare)
    return o / b if o and b else None

def verdict(value, target, at_most):
    if value is None:
        return "n/a"
    return "PASS" if (value <= target if at_most else value >= target) else "MISS"

def per_run(ours, bare):
    return " ".join("n/a" if not (o and b) else f"{o / b:.2f}" for o, b in zip(ours, bare))

def table(rows):
    widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        print("  " + "  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))

placement = f"pinned, --cpu {cpus}" if where == "pinned" else "unpinned (the scheduler places them)"
print(f"== {placement}: medians of {repeat} interleaved runs ==")
print(f"ping-pong, -s {pp_payload}: {pp_wire} B out, {echo_bytes} B back;"
      " one-way p50 = RTT p50 / 2, us")
r = ratio(ours_pp, bare_pp)
table([("", "bare", "netprof", "ratio", f"target <= {target_latency:.2f}x", "per run"),
       ("XPUB/XSUB", shown(median(bare_pp), 1e3), shown(median(ours_pp), 1e3),
        times(r), verdict(r, target_latency, True), per_run(ours_pp, bare_pp))])
pattern = ratio(bare_pp, bare_pair)
print(f"  reference, bare PAIR with the same bytes: {shown(median(bare_pair), 1e3)} us;"
      f" XPUB/XSUB costs {times(pattern)} of PAIR (per run {per_run(bare_pp, bare_pair)}),"
      f" netprof {times(ratio(ours_pp, bare_pair))} of PAIR")
print(f"stream, -s {st_payload}: {st_wire} B messages, HWM {hwm}; received messages/s, thousands")
r_drop, r_nodrop = ratio(ours_drop, bare_drop), ratio(ours_nodrop, bare_nodrop)
table([("at the HWM", "bare", "netprof", "ratio", f"target >= {target_rate:.2f}x", "per run",
        "lost bare", "lost netprof"),
       ("drop (XPUB)", shown(median(bare_drop), 1e3), shown(median(ours_drop), 1e3),
        times(r_drop), verdict(r_drop, target_rate, False),
        per_run(ours_drop, bare_drop), shown(median(bare_drop_lost), 1, 0),
        shown(median(ours_drop_lost), 1, 0)),
       ("wait (XPUB_NODROP)", shown(median(bare_nodrop), 1e3), shown(median(ours_nodrop), 1e3),
        times(r_nodrop), verdict(r_nodrop, target_rate, False),
        per_run(ours_nodrop, bare_nodrop), "0", shown(median(ours_nodrop_lost), 1, 0))])
print(f"  reference, bare PUSH/PULL with the same messages: {shown(median(bare_push), 1e3)}k/s;"
      f" XPUB/XSUB with NODROP reaches {times(ratio(bare_nodrop, bare_push))} of it"
      f" (per run {per_run(bare_nodrop, bare_push)}),"
      f" netprof --zmq-nodrop {times(ratio(ours_nodrop, bare_push))}")
if median(ours_drop_probe10) or median(ours_nodrop_probe10):
    print(f"  diagnostic, netprof with --probe-hz 10:"
          f" drop {shown(median(ours_drop_probe10), 1e3)}k/s"
          f" ({times(ratio(ours_drop_probe10, bare_drop))}), wait"
          f" {shown(median(ours_nodrop_probe10), 1e3)}k/s"
          f" ({times(ratio(ours_nodrop_probe10, bare_nodrop))})")
print()
EOF
done

bench_finish
