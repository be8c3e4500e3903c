#!/usr/bin/env bash
# shellcheck disable=SC2154  # bench_option sets the option variables (printf -v)
# The DDS evaluation's simple-vs-complex table, over Cyclone DDS on loopback: ping-pong one-way
# latency (RTT / 2, p50 and p99) of netprof --local-pair --dds --mode ping-pong --echo full with
# each --payload-type, bytes (opaque octets, the baseline), struct (a flat struct with a
# fixed-size array) and nested (a sequence of structs each holding a string and numbers), at each
# of --sizes, and the ratios struct/bytes and nested/bytes. --echo full: the echo is a sample of
# the same type and size, so both ways pay the type's serialization, as ddsperf's pong does.
# The wire column is what the subscriber's report counts per message (the serialized sample and
# its RTPS framing): nested carries about 1.5 bytes per payload byte (each element's name beside
# its 32 B of numbers), struct its whole fixed array.
# Prints figures; no target: the exit status is 0 unless a run crashed or timed out.
#
#   transports/dds/bench/bench_dds_types.sh [BUILD_DIR] [--repeat N] [--seconds S] [--sizes LIST] [--dds-notify listener|waitset|poll] [--dds-keys K]
#
# Every measurement is repeated --repeat times (3), the three types interleaved, and the medians
# compared, because one run on a shared VM swings by 20-40%.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/bench/bench_lib.sh"
bench_common_options repeat=3
bench_option --seconds seconds=3 S '^[1-9][0-9]?$' "1 to 99"
bench_option --sizes sizes=64,1024,16384 LIST '^[1-9][0-9]*(,[1-9][0-9]*)*$' "payload sizes in bytes, comma-separated"
bench_option --dds-notify dds_notify=waitset 'listener|waitset|poll' choice
bench_option --dds-keys dds_keys=1 K '^[0-9]+$' "instances (0 or 1: unkeyed)"
bench_parse_options "$@"
IFS=, read -r -a ping_sizes <<<"$sizes"
types=(bytes struct nested)

bench_begin bench_dds_types
limit=$(netprof_deadline "$seconds")

echo "host: $(bench_host), Cyclone DDS $(package_version libddsc0debian)"
echo "loopback only (--local-pair: lo, no multicast); reliable; --dds-notify $dds_notify, --dds-keys $dds_keys"
echo "ping-pong, --echo full: SIZE + $header B of netprof's message in each type, out and back"
echo

for ((run = 1; run <= repeat; run++)); do
  for size in "${ping_sizes[@]}"; do
    for type in "${types[@]}"; do
      run_netprof "$work/${type}_$size.$run.json" --local-pair --dds --dds-notify "$dds_notify" \
        --dds-keys "$dds_keys" --payload-type "$type" --mode ping-pong --echo full -s "$size" \
        -t "$seconds" --warmup-time 0.5
    done
  done
done

echo "one-way (RTT/2) per --payload-type, medians of $repeat interleaved runs; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" - "$work" "$repeat" "${ping_sizes[@]}" <<'PY'
import json, statistics, sys

work, repeat, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
types = ("bytes", "struct", "nested")


def figure(path, *keys):
    try:
        value = json.load(open(path))
        for key in keys:
            value = value[key]
        return float(value)
    except Exception:
        return None


def median(type_, size, *keys):
    values = [figure(f"{work}/{type_}_{size}.{run}.json", *keys) for run in range(1, repeat + 1)]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def wire_per_message(type_, size):
    wire = median(type_, size, "subscribers", 0, "wire_bytes")
    received = median(type_, size, "subscribers", 0, "received")
    return wire / received if wire and received else None


def us(ns):
    return "n/a" if ns is None else f"{ns / 1e3:,.2f} us"


def ratio(a, b):
    return "n/a" if a is None or not b else f"{a / b:.2f}x"


rows = [("-s", "type", "wire B/msg", "p50", "p99", "p50 / bytes", "p99 / bytes")]
for size in sizes:
    base = {q: median("bytes", size, "publisher", "latency", "one_way_ns", q) for q in ("p50", "p99")}
    for type_ in types:
        q = {k: median(type_, size, "publisher", "latency", "one_way_ns", k) for k in ("p50", "p99")}
        wire = wire_per_message(type_, size)
        rows.append((size, type_, "n/a" if wire is None else f"{wire:,.0f}", us(q["p50"]),
                     us(q["p99"]), ratio(q["p50"], base["p50"]), ratio(q["p99"], base["p99"])))
widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
for row in rows:
    print("  " + "  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))
PY

bench_finish
