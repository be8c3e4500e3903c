# shellcheck shell=bash disable=SC2034,SC2154  # sourced by bench_lib.sh: the variables are the callers'
# One command line for every benchmark script: it declares its options, each with its default
# (VARIABLE=DEFAULT, or the variable set before the declaration), then hands its arguments over,
# which sets the variables or ends the script with a one-line message and status 2 (an unknown
# option, a missing or ill-formed value); -h/--help prints the usage the declarations make, with
# each default, and exits 0. One argument that is not an option is BUILD_DIR (build_dir).
#   bench_option --NAME VARIABLE[=DEFAULT] PLACEHOLDER CHECK [NOTE]
#       CHECK: count (1 to 99), positive (an integer), seconds (a number), whole_seconds,
#       cpus (A,B), choice (one of the |-separated PLACEHOLDER), or a regular expression (^...)
#       whose NOTE is then what the value must be; otherwise NOTE follows the check's message.
#   bench_flag --NAME VARIABLE[=DEFAULT] VALUE      sets VARIABLE to VALUE when given
#   bench_parse_options "$@"
bench_option_names=()
bench_option_variables=()
bench_option_placeholders=()
bench_option_checks=()
bench_option_notes=()

bench_option()
{
  local variable=${2%%=*}
  [[ $2 != *=* ]] || printf -v "$variable" '%s' "${2#*=}"
  bench_option_names+=("$1")
  bench_option_variables+=("$variable")
  bench_option_placeholders+=("$3")
  bench_option_checks+=("$4")
  bench_option_notes+=("${5-}")
}

# The options most scripts share, declared by their usual variables in the order given, each
# with its default as OPTION=DEFAULT or set by the script beforehand: repeat, iterations, time
# (seconds), whole_time (whole seconds), rounds, cpu (cpus: A,B) or cpu_or_none (cpus: A,B or
# none, for unpinned), placement (most|near|far: which placement of the vCPUs the verdicts of a
# script judged per placement rest on, for kept_on_one_placement). Without a default, seconds is
# 2, cpus 0,1 (none under cpu_or_none) and placement most.
# A script that declares iterations and sets no warmup warms up with a tenth as many.
bench_common_options()
{
  local option default
  for option in "$@"; do
    default=""
    [[ $option != *=* ]] || default="=${option#*=}"
    case ${option%%=*} in
    repeat) bench_option --repeat "repeat$default" N count ;;
    iterations) bench_option --iterations "iterations$default" N positive ;;
    time) bench_option --time "seconds$default" SECONDS seconds; : "${seconds:=2}" ;;
    whole_time) bench_option --time "seconds$default" SECONDS whole_seconds; : "${seconds:=2}" ;;
    rounds) bench_option --rounds "rounds$default" N count ;;
    cpu)
      bench_option --cpu "cpus$default" A,B cpus "(the publisher's CPU, the subscriber's)"
      : "${cpus:=0,1}"
      ;;
    cpu_or_none)
      bench_option --cpu "cpus$default" 'A,B|none' '^([0-9]+,[0-9]+|none)$' "A,B or none"
      : "${cpus:=none}"
      ;;
    placement)
      bench_option --placement "placement$default" 'most|near|far' choice \
        "(the vCPUs' placement judged: the one most rounds held, the nearest or the farthest)"
      : "${placement:=most}"
      ;;
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
  if bench_option_index --iterations >/dev/null && [[ -z ${warmup-} ]]; then
    warmup=$((iterations / 10))
  fi
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
