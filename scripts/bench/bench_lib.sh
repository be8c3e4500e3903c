# shellcheck shell=bash disable=SC2034,SC2154  # sourced: callers set python and read last_status
# Shared by the benchmark scripts, scripts/bench/*.sh and transports/<name>/bench/*.sh (sourced,
# not run): one option parser, a work folder removed on exit, commands run under a deadline and
# stopped by PID, figures read from JSON. Set `python` before calling what reads JSON.

# This folder, for what the scripts here and in transports/<name>/bench share beside this file
# (ratio_table.py, roudi_lib.sh).
bench_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

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

# One figure from a JSON file (a dotted path; numbers index lists), or "n/a" when it has none.
field()
{
  fields "$2" "$1"
}

# netprof's wire header in bytes, what it sends in front of every payload, from the binary
# itself so that no script restates it. A netprof that prints wire_header_bytes under
# `--list-transports --json` is asked; an older one is measured: a 10-message local pair (udp)
# whose report says how many wire bytes carried how many payload bytes in how many messages.
# Call after bench_start. Exits 2 (with set -e, from a command substitution) when neither works.
netprof_header_bytes()
{
  local netprof=$1 listing bytes="" report=$work/header_bytes.json wire payload messages
  if listing=$(timeout 10 "$netprof" --list-transports --json 2>/dev/null); then
    bytes=$("$python" -c '
import json, sys
try:
    print(int(json.load(sys.stdin)["wire_header_bytes"]))
except Exception:
    pass
' <<<"$listing")
  fi
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

# What netprof's subscriber sends back for each probe (header and its stamps), from the binary
# itself, so the bare baselines echo as many bytes. A netprof that does not print
# wire_echo_bytes predates the stamps and echoes its header alone. Call after bench_start.
netprof_echo_bytes()
{
  local netprof=$1 listing bytes=""
  if listing=$(timeout 10 "$netprof" --list-transports --json 2>/dev/null); then
    bytes=$("$python" -c '
import json, sys
try:
    print(int(json.load(sys.stdin)["wire_echo_bytes"]))
except Exception:
    pass
' <<<"$listing")
  fi
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

# One command line for every benchmark script: it declares its options after setting their
# defaults, then hands its arguments over, which sets the variables or ends the script with a
# one-line message and status 2 (an unknown option, a missing or ill-formed value); -h/--help
# prints the usage the declarations make, with each default, and exits 0. One argument that is
# not an option is BUILD_DIR (build_dir).
#   bench_option --NAME VARIABLE PLACEHOLDER CHECK [NOTE]
#       CHECK: count (1 to 99), positive (an integer), seconds (a number), whole_seconds,
#       cpus (A,B), choice (one of the |-separated PLACEHOLDER), or a regular expression (^...)
#       whose NOTE is then what the value must be; otherwise NOTE follows the check's message.
#   bench_flag --NAME VARIABLE VALUE      sets VARIABLE to VALUE when given
#   bench_parse_options "$@"
bench_option_names=()
bench_option_variables=()
bench_option_placeholders=()
bench_option_checks=()
bench_option_notes=()

bench_option()
{
  bench_option_names+=("$1")
  bench_option_variables+=("$2")
  bench_option_placeholders+=("$3")
  bench_option_checks+=("$4")
  bench_option_notes+=("${5-}")
}

# The options most scripts share, declared by their usual variables in the order given:
# repeat, iterations, time (seconds), whole_time (whole seconds), rounds, cpu (cpus).
bench_common_options()
{
  local option
  for option in "$@"; do
    case $option in
    repeat) bench_option --repeat repeat N count ;;
    iterations) bench_option --iterations iterations N positive ;;
    time) bench_option --time seconds SECONDS seconds ;;
    whole_time) bench_option --time seconds SECONDS whole_seconds ;;
    rounds) bench_option --rounds rounds N count ;;
    cpu) bench_option --cpu cpus A,B cpus "(the publisher's CPU, the subscriber's)" ;;
    *) echo "bench_common_options: no option $option" >&2; exit 2 ;;
    esac
  done
}

bench_flag()
{
  bench_option "$1" "$2" "$3" flag
}

bench_parse_options()
{
  local arg index
  while (($# > 0)); do
    arg=$1
    shift
    case $arg in
    -h | --help) bench_usage; exit 0 ;;
    -*)
      index=$(bench_option_index "$arg") || bench_usage_error "unknown option $arg"
      if [[ ${bench_option_checks[index]} == flag ]]; then
        printf -v "${bench_option_variables[index]}" '%s' "${bench_option_placeholders[index]}"
      else
        (($# > 0)) || bench_usage_error "$arg needs a value (${bench_option_placeholders[index]})"
        printf -v "${bench_option_variables[index]}" '%s' "$1"
        shift
      fi
      ;;
    *) build_dir=$arg ;;
    esac
  done
  for index in "${!bench_option_names[@]}"; do
    bench_check_option "$index"
  done
}

# The index of a declared option, or status 1.
bench_option_index()
{
  local index
  for index in "${!bench_option_names[@]}"; do
    [[ ${bench_option_names[index]} == "$1" ]] && { echo "$index"; return 0; }
  done
  return 1
}

# Ends the script (status 2) when the option's value, given or default, fails its check.
bench_check_option()
{
  local index=$1 pattern must
  local name=${bench_option_names[index]} placeholder=${bench_option_placeholders[index]}
  local note=${bench_option_notes[index]} variable=${bench_option_variables[index]}
  case ${bench_option_checks[index]} in
  flag) return 0 ;;
  count) pattern='^[1-9][0-9]?$' must="1 to 99" ;;
  positive) pattern='^[1-9][0-9]*$' must="a positive integer" ;;
  seconds) pattern='^[0-9]+(\.[0-9]+)?$' must="a number of seconds" ;;
  whole_seconds) pattern='^[1-9][0-9]*$' must="a whole number of seconds" ;;
  cpus) pattern='^[0-9]+,[0-9]+$' must="A,B" ;;
  choice) pattern="^($placeholder)\$" must="one of ${placeholder//|/, }" ;;
  *) pattern=${bench_option_checks[index]} must=$note note="" ;;
  esac
  [[ ${!variable} =~ $pattern ]] || bench_usage_error "$name must be $must${note:+ $note}"
}

bench_usage_error()
{
  echo "$(basename "$0"): $1" >&2
  echo "usage: $(bench_usage_line)" >&2
  exit 2
}

bench_usage_line()
{
  local index line="$0 [BUILD_DIR]"
  for index in "${!bench_option_names[@]}"; do
    if [[ ${bench_option_checks[index]} == flag ]]; then
      line+=" [${bench_option_names[index]}]"
    else
      line+=" [${bench_option_names[index]} ${bench_option_placeholders[index]}]"
    fi
  done
  echo "$line"
}

bench_usage()
{
  local index variable
  echo "usage: $(bench_usage_line)"
  echo "  BUILD_DIR  a Release build with the benchmarks (default ${build_dir:-./build})"
  for index in "${!bench_option_names[@]}"; do
    variable=${bench_option_variables[index]}
    if [[ ${bench_option_checks[index]} != flag ]]; then
      echo "  ${bench_option_names[index]} ${bench_option_placeholders[index]}  (default ${!variable:-none})"
    else
      echo "  ${bench_option_names[index]}"
    fi
  done
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
