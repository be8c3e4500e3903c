#!/usr/bin/env bash
# Builds netprof under the sanitizers and runs its tests there (CI runs both parts):
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer, the ctest suite (but three e2e tests)
#   tsan  ThreadSanitizer, only the tests with concurrent code: the shared-memory ring and
#         segment, the transport contract, the core protocol (with probes relayed from a
#         transport's thread) and the live status reporter
# Usage: scripts/setup/sanitize.sh [asan|tsan|all]   (default all)
# Build folders: ASAN_BUILD_DIR (default ./build-asan), TSAN_BUILD_DIR (default ./build-tsan).
# Any sanitizer report fails the run: ASan and TSan exit non-zero on their first report, and
# UBSan is made to halt as well. Needs only the packages scripts/setup/install_deps.sh installs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
asan_dir="${ASAN_BUILD_DIR:-$root/build-asan}"
tsan_dir="${TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="${JOBS:-2}"
which="${1:-all}"
case "$which" in
  asan | tsan | all) ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac

"$root/scripts/setup/install_deps.sh"

# Each sanitizer's suppressions: tests/sanitizers/<kind>.supp and every transport's own
# transports/<name>/<kind>.supp, gathered into one file per run.
gather_suppressions() {
  local kind=$1 out=$2
  cat "$root/tests/sanitizers/$kind.supp" > "$out"
  local fragment
  for fragment in "$root"/transports/*/"$kind.supp"; do
    [[ -f $fragment ]] || continue
    printf '\n# from %s\n' "${fragment#"$root"/}" >> "$out"
    cat "$fragment" >> "$out"
  done
}
suppressions=$(mktemp -d "${TMPDIR:-/tmp}/netprof-suppressions.XXXXXX")
trap 'rm -rf "$suppressions"' EXIT
for kind in ubsan lsan tsan; do
  gather_suppressions "$kind" "$suppressions/$kind.supp"
done

# What each transport declares in transports/<name>/sanitizers.conf (key=value lines; see
# transports/shm/sanitizers.conf and transports/zmq/sanitizers.conf): the values of KEY, one
# "name value" line per transport that sets it.
transport_declarations() {
  local key=$1 conf name line
  for conf in "$root"/transports/*/sanitizers.conf; do
    [[ -f $conf ]] || continue
    name=$(basename "$(dirname "$conf")")
    while IFS= read -r line; do
      [[ $line == "$key="* ]] && echo "$name ${line#"$key="}"
    done < "$conf"
  done
}

# Reports go to stderr, which ctest shows for a failing test (--output-on-failure).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$suppressions/ubsan.supp"
# new_delete_type_mismatch=0: Debian's libfastrtps (Fast DDS 2.9) allocates a reader as its
# StatisticsReaderImpl and deletes it through RTPSReader's destructor with a sized delete, in its
# own code whenever a reader goes (DomainParticipantImpl::delete_contained_entities); ASan's
# suppressions cannot name this check, and nothing of ours is involved.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:new_delete_type_mismatch=0"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$suppressions/tsan.supp"

# -O1 keeps sanitized builds and tests quick while leaving stacks readable (-g1: file and line in
# every frame); asserts stay on (no NDEBUG). Benchmarks are not built: they test nothing.
# A unity build (16 sources per compilation) takes about a third less time: an ASan build of
# everything took 322 s against 480-500 s one source at a time (2 cores, quiet, 2026-11-27).
# It also keeps two files of one target from defining the same helper unnoticed. The Release
# build users run and benchmark stays one source at a time.
configure_and_build() {
  local dir="$1" sanitizers="$2"
  shift 2
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DNETPROF_BUILD_BENCH=OFF \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
    -DNETPROF_SANITIZE="$sanitizers" >/dev/null
  cmake --build "$dir" -j"$jobs" "$@"
}

# Left out under ASan, to keep CI within its budget: end-to-end tests whose subject is not the
# binary's memory but time and scripts (the soak's memory growth, which ASan's own allocator
# would hide anyway; the sweep, plot, knee and compare scripts and their logic; ten interrupts
# per transport; the multi-host launcher against its lab of sshds; the ground truth of rates
# under tc shaping between namespaces, which ASan's slowness distorts anyway). The Release run
# of scripts/test.sh runs them.
asan_excluded='^e2e_test_(soak|sweep|knee|compare|analysis_units|local_pair_interrupt|multihost|netns_hosts)$'

run_asan() {
  echo "== sanitize: AddressSanitizer + UndefinedBehaviorSanitizer, whole suite but $asan_excluded ($asan_dir)"
  configure_and_build "$asan_dir" address,undefined
  (cd "$asan_dir" && ctest --output-on-failure --no-tests=error -j"$jobs" --timeout 300 -E "$asan_excluded")
}

# The tests whose code runs on more than one thread of one process (TSan sees nothing across
# processes, so the two-process e2e tests are left out): the transport contract (shm's ring
# between a sender and a receiver in one process; the others' own threads), the core protocol and
# fault tests (publisher and subscribers on threads over an in-memory link), and --local-pair
# --threads over real shm and udp endpoints in one process (ThreadPair); beside them, what each
# transport's sanitizers.conf adds (tsan_targets, tsan_tests: shm's ring and segment) or leaves
# out (tsan_excluded=contract: a library TSan cannot judge, the file says why). Only these
# executables are built. Then the live status line's thread, which needs a terminal.
tsan_targets=(contract_tests unit_core netprof)
tsan_suites=(Protocol Faults LocalPairArguments ThreadPair IntervalThreads RelayedProbes)
tsan_excluded_transports=()
while read -r _ values; do
  read -r -a more <<<"$values"
  tsan_targets+=("${more[@]}")
done < <(transport_declarations tsan_targets)
while read -r _ values; do
  read -r -a more <<<"$values"
  tsan_suites+=("${more[@]}")
done < <(transport_declarations tsan_tests)
while read -r name value; do
  [[ $value == contract ]] && tsan_excluded_transports+=("$name")
done < <(transport_declarations tsan_excluded)
tsan_tests="^(($(IFS='|'; echo "${tsan_suites[*]}"))\\.|Builtin/TransportContract\\.)"
tsan_excluded='^$'
if ((${#tsan_excluded_transports[@]} > 0)); then
  tsan_excluded="^Builtin/TransportContract\\..*/($(IFS='|'; echo "${tsan_excluded_transports[*]}"))"
fi

run_tsan() {
  echo "== sanitize: ThreadSanitizer, concurrent tests ($tsan_dir)"
  local targets=()
  for target in "${tsan_targets[@]}"; do
    targets+=(--target "$target")
  done
  configure_and_build "$tsan_dir" thread "${targets[@]}"
  (cd "$tsan_dir" && ctest --output-on-failure --no-tests=error -j"$jobs" --timeout 300 -R "$tsan_tests" -E "$tsan_excluded")
  /usr/bin/python3 "$root/tests/sanitizers/status_line_on_terminal.py" "$tsan_dir/netprof"
}

case "$which" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
esac
