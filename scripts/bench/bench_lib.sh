# shellcheck shell=bash disable=SC2034,SC2154  # sourced: callers set python and read last_status
# Shared by scripts/bench/bench_*.sh (sourced, not run): a work folder removed on exit, commands run
# under a deadline and stopped by PID, figures read from JSON. Set `python` before sourcing.

# PIDs started here and still running; a script may add its own (a server beside a client).
running=()
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
  local pid
  for pid in "${running[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
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
  running=($!)
  wait "${running[0]}" || status=$?
  running=()
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

# One figure from a JSON file (a dotted path; numbers index lists), or "n/a" when it has none.
field()
{
  "$python" -c '
import json, sys
try:
    value = json.load(open(sys.argv[1]))
    for key in sys.argv[2].split("."):
        value = value[int(key)] if isinstance(value, list) else value[key]
    print(value)
except Exception:
    print("n/a")
' "$1" "$2"
}

# A deadline for a netprof run of -t SECONDS: its warm-up and end-of-test handshake come on top.
netprof_deadline()
{
  "$python" -c 'import math, sys; print(60 + math.ceil(float(sys.argv[1])))' "$1"
}
