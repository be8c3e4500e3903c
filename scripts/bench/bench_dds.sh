#!/usr/bin/env bash
# netprof over Cyclone DDS against Cyclone's own ddsperf, interleaved in one run, both kept on
# loopback by the same configuration (lo only, no multicast, unicast discovery to 127.0.0.1:
# what netprof's --dds-loopback uses; ddsperf is given it through CYCLONEDDS_URI):
#   ping-pong: one-way p50 (RTT p50 / 2) of netprof --mode ping-pong -s 64 --echo full, reliable
#              (its header + 64 B out, as many back, as ddsperf's pong returns), and of `ddsperf ping size N` / `ddsperf pong` with
#              samples of the same N bytes, reliable; target netprof <= 1.10x ddsperf
#   stream:    received messages/s of netprof -s 128, reliable keep-all, and of `ddsperf pub
#              size N` / `ddsperf sub` (reliable keep-all, its defaults) for the same time;
#              target netprof >= 0.90x ddsperf
# ddsperf's ping and pong take each sample in a listener, on Cyclone's receive thread; netprof
# takes them on its own thread (a waitset under --wait-strategy block, its default), which
# costs a thread wake-up per hop: --wait-strategy and ddsperf's "waitset" mode are options.
# Prints figures; a missed target is reported, never an error: the exit status is 0 unless a run
# crashed or timed out.
#
#   scripts/bench/bench_dds.sh [BUILD_DIR] [--repeat N] [--seconds S] [--wait-strategy block|yield|spin] [--ddsperf-mode listener|waitset]
#
# Every measurement is repeated --repeat times (5), ddsperf and netprof interleaved, and the
# medians compared, because one run on a shared VM swings by 20-40%.

set -euo pipefail

build_dir=./build
repeat=5
seconds=3
payload=64
payload_stream=128
wait_strategy=block
ddsperf_mode=listener
domain=77
target_rate=0.90
target_latency=1.10

usage()
{
  grep -A1 -m1 '^#   scripts/' "$0" | sed 's/^#   //'
}

while (($# > 0)); do
  case $1 in
  --repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
  --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
  --wait-strategy) wait_strategy=${2:?--wait-strategy needs a value}; shift 2 ;;
  --ddsperf-mode) ddsperf_mode=${2:?--ddsperf-mode needs a value}; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  *) build_dir=$1; shift ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]?$ ]] || { echo "--repeat must be 1 to 99" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]?$ ]] || { echo "--seconds must be 1 to 99" >&2; exit 2; }
[[ $wait_strategy =~ ^(block|yield|spin)$ ]] || { echo "--wait-strategy must be block, yield or spin" >&2; exit 2; }
[[ $ddsperf_mode =~ ^(listener|waitset)$ ]] || { echo "--ddsperf-mode must be listener or waitset" >&2; exit 2; }

netprof=$build_dir/netprof
python=/usr/bin/python3
ddsperf=$(command -v ddsperf || true)
[[ -n $ddsperf ]] || { echo "ddsperf not found: install cyclonedds-tools" >&2; exit 2; }

source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
require_binaries "$netprof"
bench_start bench_dds

header=$(netprof_header_bytes "$netprof")
limit=$(netprof_deadline "$((seconds * 4))")
# netprof's own --dds-loopback configuration (dds_domain.cpp), for ddsperf.
export CYCLONEDDS_URI='<CycloneDDS><Domain id="any"><General><Interfaces><NetworkInterface name="lo"/></Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>50</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>'

# ddsperf's two sides: the second in the background for a second longer than the first.
ddsperf_pair()
{
  local out=$1 background=$2 foreground=$3 pid status=0
  # shellcheck disable=SC2086
  timeout --kill-after=5 "$((seconds + 4))" "$ddsperf" -i "$domain" -D "$((seconds + 2))" $background \
    >"$out.background" 2>&1 &
  pid=$!
  running+=("$pid")
  # shellcheck disable=SC2086
  tolerated_statuses=1 run_limited "$limit" "$out" "$ddsperf" -i "$domain" -D "$((seconds + 1))" $foreground || status=$?
  wait "$pid" || true
  return $status
}

read -r load _ </proc/loadavg
echo "host: $(uname -sr), $(nproc) CPUs, load $load, Cyclone DDS $(dpkg-query -W -f='${Version}' libddsc0debian 2>/dev/null || echo '?')"
echo "loopback only (lo, no multicast); reliable; netprof --wait-strategy $wait_strategy, ddsperf $ddsperf_mode"
echo "ping-pong $((payload + header)) B samples each way for ddsperf, netprof -s $payload; stream $((payload_stream + header)) B"
echo

for ((run = 1; run <= repeat; run++)); do
  ddsperf_pair "$work/ping.$run.out" "pong $ddsperf_mode" "ping size $((payload + header)) $ddsperf_mode" || true
  tolerated_statuses=1 run_limited "$limit" "$work/netprof.$run.out" "$netprof" --local-pair \
    --dds --mode ping-pong --echo full -s "$payload" -t "$seconds" --warmup-time 0.5 \
    --wait-strategy "$wait_strategy" --quiet --json "$work/netprof.$run.json"
  ddsperf_pair "$work/sub.$run.out" "sub" "pub size $((payload_stream + header))" || true
  tolerated_statuses=1 run_limited "$limit" "$work/netprof_stream.$run.out" "$netprof" --local-pair \
    --dds --dds-history keep-all -s "$payload_stream" -t "$seconds" --warmup-time 0.5 \
    --wait-strategy "$wait_strategy" --quiet --json "$work/netprof_stream.$run.json"
done

runs_of()
{
  local kind=$1 path=$2 files=() run
  for ((run = 1; run <= repeat; run++)); do files+=("$work/$kind.$run.json"); done
  fields "$path" "${files[@]}"
}

# ddsperf prints a line a second; the first second holds discovery and warm-up, so it is left out.
ddsperf_figures()
{
  local kind=$1 pattern=$2 file=() run
  for ((run = 1; run <= repeat; run++)); do file+=("$work/$kind.$run.out"); done
  "$python" - "$pattern" "${file[@]}" <<'PY'
import re, statistics, sys
pattern, files = sys.argv[1], sys.argv[2:]
out = []
for path in files:
    try:
        text = open(path).read()
    except OSError:
        text = ""
    values = [float(m.group(1)) for m in re.finditer(pattern, text)]
    out.append(str(statistics.median(values[1:] or values)) if values else "n/a")
print(" ".join(out))
PY
}

# ping: "50% 22.342us" per line, half a round trip (ddsperf's pong handler halves
# now - source timestamp); sub (in the background file): "rate 125.95 kS/s".
ping_p50_us=$(ddsperf_figures ping '50% ([0-9.]+)us')
sub_rate_k=$(for ((run = 1; run <= repeat; run++)); do cp "$work/sub.$run.out.background" "$work/subrate.$run.out" 2>/dev/null || true; done
  ddsperf_figures subrate 'rate ([0-9.]+) kS/s')

"$python" - "$repeat" "$target_latency" "$target_rate" "$ping_p50_us" \
  "$(runs_of netprof publisher.latency.one_way_ns.p50)" \
  "$sub_rate_k" \
  "$(runs_of netprof_stream subscribers.0.throughput.messages_per_second)" <<'PY'
import statistics, sys

repeat, target, target_rate, bare, ours, bare_rate, ours_rate = sys.argv[1:]
target, target_rate = float(target), float(target_rate)

def numbers(text, scale=1.0):
    return [None if word == "n/a" else float(word) * scale for word in text.split()]

bare = numbers(bare, 1e3)  # ddsperf prints half its round trips already: us -> ns
ours = numbers(ours)

def median(values):
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None

def compare(title, name, b, o, scale, unit, ratio_target, at_most):
    mb, mo = median(b), median(o)
    print(f"{title}, medians of {repeat} interleaved runs, {unit}")
    print(f"  {name:<10} {mb / scale:.1f}" if mb else f"  {name:<10} n/a")
    print(f"  {'netprof':<10} {mo / scale:.1f}" if mo else f"  {'netprof':<10} n/a")
    per_run = " ".join("n/a" if not (x and y) else f"{x / y:.2f}" for x, y in zip(o, b))
    if not (mb and mo):
        print("  ratio netprof/ddsperf: n/a")
        return
    ratio = mo / mb
    ok = ratio <= ratio_target if at_most else ratio >= ratio_target
    sign = "<=" if at_most else ">="
    print(f"  ratio netprof/ddsperf: {ratio:.2f}x (target {sign} {ratio_target:.2f}x: "
          f"{'PASS' if ok else 'MISS'}); per run {per_run}")

compare("one-way p50 (RTT p50 / 2)", "ddsperf", bare, ours, 1e3, "us", target, True)
compare("stream, received messages/s", "ddsperf", numbers(bare_rate, 1e3), numbers(ours_rate),
        1e3, "thousands", target_rate, False)
PY

if ((failures > 0)); then
  echo "$failures run(s) failed; their figures are n/a" >&2
  exit 1
fi
