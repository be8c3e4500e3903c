# shellcheck shell=bash disable=SC2034,SC2154  # sourced: callers set python and read last_status
# Shared by the benchmark scripts, scripts/bench/*.sh and transports/<name>/bench/*.sh (sourced,
# not run): one option parser, a work folder removed on exit, commands run under a deadline and
# stopped by PID, figures read from JSON. Set `python` before calling what reads JSON.

# This folder, for what the scripts here and in transports/<name>/bench share beside this file
# (ratio_table.py, roudi_lib.sh).
bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The one option parser (bench_option, bench_common_options, bench_parse_options).
source "$bench_lib_dir/bench_options.sh"

# Where netprof and the benchmarks are, unless the script says otherwise; BUILD_DIR on the
# command line overrides either.
build_dir=${build_dir:-./build}

# PIDs started here and still running; a script may add its own (a server beside a client).
running=()
# Functions bench_cleanup calls first, to put back what a script changed on the host.
bench_exit_hooks=()
failures=0
last_status=0
# Comma-separated exit statuses run_limited keeps without counting a failure (set per call:
# `tolerated_statuses=1 run_limited ...`); netprof's 1 means the test ran but failed.
tolerated_statuses=""

# Makes $work, a folder named after the benchmark, and arranges for everything to be cleaned up.
bench_start()
{
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

bench_cleanup()
{
  # timeout runs its command in its own process group, out of reach of the terminal's Ctrl-C,
  # so whatever is still running is stopped here by its PID (netprof then unlinks what it owns).
  local pid hook
  for hook in "${bench_exit_hooks[@]}"; do
    "$hook"
  done
  for pid in "${running[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}

# What every netprof-against-a-baseline script does once its options are parsed:
# `bench_begin NAME [VARIABLE=PROGRAM | EXECUTABLE]...` sets netprof ($build_dir/netprof), python
# (unless set), table (ratio_table.py), pin (`--cpu $cpus` for netprof and the bare programs,
# none when cpus is "none") and each VARIABLE to the bare PROGRAM in $build_dir/bench; exits 2
# when netprof, a PROGRAM or an EXECUTABLE is missing; makes $work for NAME (bench_start); and
# asks netprof for header (its wire header's bytes, in front of every payload) and echo_bytes
# (what its subscriber sends back for each probe).
bench_begin()
{
  local name=$1 argument executables=()
  shift
  netprof=$build_dir/netprof
  python=${python:-/usr/bin/python3}
  table=$bench_lib_dir/ratio_table.py
  pin=()
  [[ ${cpus:-none} == none ]] || pin=(--cpu "$cpus")
  for argument in "$@"; do
    if [[ $argument == *=* ]]; then
      printf -v "${argument%%=*}" '%s' "$build_dir/bench/${argument#*=}"
      executables+=("$build_dir/bench/${argument#*=}")
    else
      executables+=("$argument")
    fi
  done
  require_binaries "$netprof" "${executables[@]}"
  bench_start "$name"
  header=$(netprof_header_bytes "$netprof")
  echo_bytes=$(netprof_echo_bytes "$netprof")
}

# What a script's first line says of the host: "Linux 6.18.44, 2 CPUs, load average 0.10 0.20
# 0.30" (`echo "host: $(bench_host)"`, and what else matters after it).
bench_host()
{
  echo "$(uname -sr), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The version of an installed Debian package, "?" when it is not installed.
package_version()
{
  dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'
}

# A loopback port free right now, TCP or (`bench_free_port udp`) UDP; with a RUN, the first of
# that many free in a row (nng pushpull's data, back and control channels):
# `bench_free_port [tcp|udp] [RUN]`.
bench_free_port()
{
  "$python" -c '
import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
run = int(sys.argv[2])

def free(port):
    with socket.socket(socket.AF_INET, kind) as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False

for _ in range(64):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if port + run - 1 <= 65535 and all(free(port + k) for k in range(1, run)):
        print(port)
        sys.exit(0)
sys.exit("no run of %d free ports" % run)' "${1:-tcp}" "${2:-1}"
}

# The end of a script: exits 1 saying how many runs failed, when any did.
bench_finish()
{
  if ((failures > 0)); then
    echo "$failures run(s) failed; their figures are n/a" >&2
    exit 1
  fi
}

# Exits 2 naming the first of the given executables that is missing.
require_binaries()
{
  local binary
  for binary in "$@"; do
    [[ -x $binary ]] || { echo "missing $binary: build with NETPROF_BUILD_BENCH=ON first" >&2; exit 2; }
  done
}

# Runs a command under a deadline, stdout to $2; returns 0 without tripping set -e, leaving the
# command's status in $last_status and counting it in $failures unless it is tolerated.
run_limited()
{
  local limit=$1 out=$2 status=0
  shift 2
  timeout --kill-after=5 "$limit" "$@" >"$out" 2>"$out.err" &
  local pid=$! kept=() other
  running+=("$pid")
  wait "$pid" || status=$?
  # What a script started beside it (bench_second_publisher.sh's second pair) stays listed.
  for other in "${running[@]}"; do [[ $other == "$pid" ]] || kept+=("$other"); done
  running=(${kept[@]+"${kept[@]}"})
  last_status=$status
  if ((status != 0)) && [[ ",$tolerated_statuses," != *",$status,"* ]]; then
    ((failures += 1))
    local why="exit $status"
    ((status == 124 || status == 137)) && why+=", timed out"
    echo "FAILED ($why): $*" >&2
    tail -n 5 "$out.err" >&2 || true
  fi
  return 0
}

# netprof (set by bench_begin) under the deadline $limit, quiet, its JSON report to FILE and
# its output beside it (FILE less .json, plus .out); its status 1 (the test ran but failed) is
# not counted a failure: `run_netprof FILE ARGUMENT...`.
run_netprof()
{
  local json=$1
  shift
  tolerated_statuses=1 run_limited "$limit" "${json%.json}.out" "$netprof" "$@" --quiet \
    --json "$json"
}

# Stops a server started beside a client (SIGINT: sockperf's says what it counted) by its PID,
# and counts a failure when the client's STATUS was not 0, naming WHAT and showing the end of
# LOG when given: `bench_stop_server PID STATUS WHAT [LOG]`.
bench_stop_server()
{
  local server=$1 status=$2 what=$3 log=${4-}
  kill -INT "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  running=()
  if ((status != 0)); then
    ((failures += 1))
    echo "FAILED (exit $status): $what" >&2
    if [[ -n $log ]]; then tail -n 5 "$log" >&2 || true; fi
  fi
}

# The figure at a dotted path (numbers index lists) in each JSON file named, space-separated in
# the order given; "n/a" for a file that is missing, unreadable or has no such figure.
fields()
{
  local path=$1
  shift
  "$python" -c '
import json, sys

def figure(name, dotted):
    try:
        value = json.load(open(name))
        for key in dotted.split("."):
            value = value[int(key)] if isinstance(value, list) else value[key]
        return value
    except Exception:
        return "n/a"

print(" ".join(str(figure(name, sys.argv[1])) for name in sys.argv[2:]))
' "$path" "$@"
}

# The figure at a dotted path in $work/NAME.1.json ... $work/NAME.COUNT.json, one per run, as
# fields prints them: `figures_of_runs COUNT NAME PATH`.
figures_of_runs()
{
  local count=$1 name=$2 path=$3 files=() run
  for ((run = 1; run <= count; run++)); do files+=("$work/$name.$run.json"); done
  fields "$path" "${files[@]}"
}

# The same over the $repeat runs of NAME, space-separated in run order: `runs_of NAME PATH`.
runs_of()
{
  figures_of_runs "$repeat" "$1" "$2"
}

# The placement of the two vCPUs, for placement_runs.py: bench/cache_line_pingpong's one-line
# floor into $work/NAME.json. A pair of runs measured between `measure_floor
# floor_before.KEY.ROUND` and `measure_floor floor_after.KEY.ROUND` can be judged by it.
# Between the CPUs of --cpu, or 0 and 1 for a script whose runs are not pinned.
measure_floor()
{
  local pair=${cpus:-none}
  [[ $pair != none ]] || pair=0,1
  run_limited 60 "$work/$1.json" "$build_dir/bench/cache_line_pingpong" --cpu "$pair" \
    --iterations 200000
}

# Each FIGURES list (figures_of_runs' format) with only the runs of the placement most of KEY's
# rounds held kept (or the nearest or farthest, as --placement asks), one per line, then the line
# saying which placement that was (placement_runs.py --at-least MIN):
# `kept_on_one_placement ROUNDS KEY MIN FIGURES...`, read with mapfile.
kept_on_one_placement()
{
  local rounds=$1 key=$2 at_least=$3
  shift 3
  "$python" "$bench_lib_dir/placement_runs.py" --at-least "$at_least" --keep "${placement:-most}" \
    "$(figures_of_runs "$rounds" "floor_before.$key" one_way_p50_ns)" \
    "$(figures_of_runs "$rounds" "floor_after.$key" one_way_p50_ns)" "$@"
}

# The rounds a script's verdicts rest on, as its heading names them (--placement):
# `judged_placement ROUNDS`.
judged_placement()
{
  case ${placement:-most} in
  near) echo "the nearest placement of the vCPUs that enough of the $1 held" ;;
  far) echo "the farthest placement of the vCPUs that enough of the $1 held" ;;
  *) echo "the placement of the vCPUs most of the $1 held" ;;
  esac
}

# What a publisher's report says of a round-robin its transport dealt: each subscriber's share
# in ascending order, the loss in total and the run's status ("n/a" without a report):
# `dealt_shares JSON`.
dealt_shares()
{
  "$python" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    shares = sorted(s["unique"] for s in d["subscribers"])
    loss = d["publisher"]["dealt_loss"]
    print("shares", shares, "lost", loss["lost"], "of", loss["sent"], d["result"]["status"])
except (OSError, ValueError, KeyError, TypeError):
    print("n/a")' "$1"
}

# A publisher's send rate in each of the $repeat runs of NAME ($work/NAME.RUN.json): what it
# sent over its measured phase, space-separated in run order ("n/a" for a run without it):
# `runs_sender_rate NAME`.
runs_sender_rate()
{
  local run
  for ((run = 1; run <= repeat; run++)); do
    "$python" -c '
import json, sys
try:
    p = json.load(open(sys.argv[1]))["publisher"]
    print(p["messages_sent"] / p["measured_seconds"])
except (OSError, ValueError, KeyError, ZeroDivisionError):
    print("n/a")' "$work/$1.$run.json"
  done | tr '\n' ' '
}

# One figure from a JSON file (a dotted path; numbers index lists), or "n/a" when it has none.
field()
{
  fields "$2" "$1"
}

# The whole number netprof prints as FIELD under `--list-transports --json`, or nothing (an older
# netprof that does not print it): `netprof_listed_number NETPROF FIELD`.
netprof_listed_number()
{
  local listing
  listing=$(timeout 10 "$1" --list-transports --json 2>/dev/null) || return 0
  "$python" -c '
import json, sys
try:
    print(int(json.load(sys.stdin)[sys.argv[1]]))
except Exception:
    pass
' "$2" <<<"$listing"
}

# netprof's wire header in bytes, what it sends in front of every payload, from the binary
# itself so that no script restates it. A netprof that prints wire_header_bytes under
# `--list-transports --json` is asked; an older one is measured: a 10-message local pair (udp)
# whose report says how many wire bytes carried how many payload bytes in how many messages.
# Call after bench_start. Exits 2 (with set -e, from a command substitution) when neither works.
netprof_header_bytes()
{
  local netprof=$1 bytes report=$work/header_bytes.json wire payload messages
  bytes=$(netprof_listed_number "$netprof" wire_header_bytes)
  if [[ -z $bytes ]] && timeout 30 "$netprof" --local-pair -s 64 --count 10 --warmup-count 0 \
    --quiet --json "$report" >/dev/null 2>&1; then
    read -r wire payload messages <<<"$(fields subscribers.0.wire_bytes "$report") $(
      fields subscribers.0.payload_bytes "$report") $(fields subscribers.0.received "$report")"
    if [[ $wire$payload$messages =~ ^[0-9]+$ ]] && ((messages > 0)); then
      bytes=$(((wire - payload) / messages))
    fi
  fi
  if [[ ! $bytes =~ ^[0-9]+$ ]]; then
    echo "cannot learn netprof's header size from $netprof" >&2
    exit 2
  fi
  echo "$bytes"
}

# Says so on stderr when the datagrams in netprof's report JSON are not BYTES each, its header
# and payload (the header changed size since it was asked): `check_datagram_size JSON BYTES`.
check_datagram_size()
{
  local datagrams wire_bytes
  datagrams=$(field "$1" subscribers.0.datagrams)
  wire_bytes=$(field "$1" subscribers.0.wire_bytes)
  if [[ $datagrams =~ ^[1-9][0-9]*$ && $wire_bytes =~ ^[0-9]+$ ]] &&
    ((wire_bytes != datagrams * $2)); then
    echo "note: netprof's datagrams are $((wire_bytes / datagrams)) B, not $2 B: the header size changed" >&2
  fi
}

# What netprof's subscriber sends back for each probe (header and its stamps), from the binary
# itself, so the bare baselines echo as many bytes. A netprof that does not print
# wire_echo_bytes predates the stamps and echoes its header alone. Call after bench_start.
netprof_echo_bytes()
{
  local netprof=$1 bytes
  bytes=$(netprof_listed_number "$netprof" wire_echo_bytes)
  if [[ ! $bytes =~ ^[0-9]+$ ]]; then
    bytes=$(netprof_header_bytes "$netprof")
  fi
  echo "$bytes"
}

# A deadline for a netprof run of -t SECONDS: its warm-up and end-of-test handshake come on top.
netprof_deadline()
{
  "$python" -c 'import math, sys; print(60 + math.ceil(float(sys.argv[1])))' "$1"
}

# Says so on stderr when the netprof that wrote this JSON report is not a Release build.
warn_unless_release()
{
  local build_type
  build_type=$(field "$1" tool.build_type)
  if [[ $build_type != Release ]]; then
    echo "note: netprof's build type is $build_type, not Release; its timings are not representative" >&2
  fi
}
