#!/usr/bin/env bash
# netprof's UDP ping-pong against the bare baseline (transports/udp/bench/bare_udp_pingpong.cpp), for each wait
# strategy, plus the histogram's cost per record. Prints figures; a missed target is reported,
# never an error: the exit status is 0 unless a run crashed or timed out.
#
#   transports/udp/bench/bench_udp_pingpong.sh [BUILD_DIR] [--iterations N] [--time SECONDS] [--cpu A,B]
#
# BUILD_DIR (default ./build) must hold a Release build with the benchmarks. See
# docs/benchmarks.md for how to read the output.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options iterations=100000 time=5 cpu=0,1
bench_parse_options "$@"

bench_begin bench_udp_pingpong bare=bare_udp_pingpong
histogram_bench=$build_dir/bench/histogram_bench
payload=64
limit=$(netprof_deadline "$seconds")
wire_size=$((payload + header))

echo "host: $(bench_host), clock $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
read -r load _ </proc/loadavg
if "$python" -c 'import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))' "$load" "$(nproc)"; then
  echo "warning: load $load >= $(nproc) CPUs: other work shares the pinned CPUs; expect noisy figures" >&2
fi
echo "bare: $iterations round trips (+$warmup warm-up) per run; netprof: -t $seconds s; pinned to CPUs $cpus"
echo "like for like: netprof -s $payload sends $payload B payload + $header B header = $wire_size B datagrams,"
echo "so the ratio divides by the bare baseline at --size $wire_size; the bare $payload B figure is for reference."
echo

rows=()
for wait_strategy in block spin; do
  for size in "$wire_size" "$payload"; do
    run_limited 60 "$work/bare_${wait_strategy}_$size.json" \
      "$bare" --size "$size" --iterations "$iterations" --warmup "$warmup" \
      --wait "$wait_strategy" "${pin[@]}"
  done
  json=$work/netprof_$wait_strategy.json
  # netprof's exit 1 means the test ran but failed its own criteria (say, an echo later than
  # --probe-timeout on a starved machine): the figures exist, so they are shown with a note.
  run_netprof "$json" --local-pair --mode ping-pong -s "$payload" \
    --wait-strategy "$wait_strategy" "${pin[@]}" -t "$seconds"
  if ((last_status == 1)); then
    echo "note: netprof $wait_strategy reported FAIL: $(field "$json" result.problems)" >&2
  fi
  check_datagram_size "$json" "$wire_size"

  rows+=("$wait_strategy" \
    "$(field "$work/bare_${wait_strategy}_$payload.json" one_way_p50_ns)" \
    "$(field "$work/bare_${wait_strategy}_$wire_size.json" one_way_p50_ns)" \
    "$(field "$json" publisher.latency.one_way_ns.p50)" \
    "$(field "$work/bare_${wait_strategy}_$wire_size.json" rtt_p99_ns)" \
    "$(field "$json" publisher.latency.rtt_ns.p99)" \
    "$(field "$json" publisher.echoes_received)")
done
warn_unless_release "$work/netprof_spin.json"

target_ratio=1.10
"$python" - "$target_ratio" "$payload" "$wire_size" "${rows[@]}" <<'EOF'
import sys

target = float(sys.argv[1])
payload, wire = sys.argv[2], sys.argv[3]
cells = sys.argv[4:]

def number(text):
    try:
        return float(text)
    except ValueError:
        return None

print(f"one-way latency p50 = RTT p50 / 2, ns; ratio = netprof / bare {wire} B; target <= {target:.2f}x")
header = ("wait", f"bare {payload}B", f"bare {wire}B", f"netprof {payload}+{int(wire) - int(payload)}B",
          "ratio", "target", "verdict", f"RTT p99 bare {wire}B", "RTT p99 netprof", "netprof samples")
rows = [header]
for i in range(0, len(cells), 7):
    wait, bare_small, bare_wire, ours, bare_p99, ours_p99, samples = cells[i:i + 7]
    b, n = number(bare_wire), number(ours)
    if b and n:
        ratio = n / b
        verdict = "PASS" if ratio <= target else "MISS"
        ratio_text = f"{ratio:.2f}x"
    else:
        ratio_text, verdict = "n/a", "n/a"
    rows.append((wait, bare_small, bare_wire, ours, ratio_text, f"{target:.2f}x", verdict,
                 bare_p99, ours_p99, samples))
widths = [max(len(str(row[c])) for row in rows) for c in range(len(header))]
for row in rows:
    print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))
EOF

echo
if [[ -x $histogram_bench ]]; then
  run_limited 60 "$work/histogram.json" "$histogram_bench" \
    --benchmark_filter=BM_histogram_record --benchmark_format=json
  target_record_ns=5
  "$python" - "$work/histogram.json" "$target_record_ns" <<'EOF'
import json, sys

target = float(sys.argv[2])
try:
    result = next(b for b in json.load(open(sys.argv[1]))["benchmarks"]
                  if b["name"] == "BM_histogram_record")
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[result["time_unit"]]
    ns = result["cpu_time"] * scale
    verdict = "PASS" if ns <= target else "MISS"
    print(f"histogram record: {ns:.2f} ns/record (CPU time), target <= {target:.0f} ns: {verdict}")
except Exception as error:
    print(f"histogram record: n/a ({error})")
EOF
else
  echo "histogram record: not measured ($histogram_bench not built)"
fi

bench_finish
