#!/usr/bin/env bash
# Fuzzes netprof's decoders with libFuzzer (clang), a bounded time per target:
#   wire_header      a whole received message: header, then final counters or records
#   wire_records     the --num-vars record decoder
#   udp_reassembler  the UDP fragment reassembler, fed scripts of datagrams
#   control_messages the handshake: MACs (--key-file), cookies, final counters' plausibility
# Usage: scripts/setup/fuzz.sh [seconds-per-target]   (default 30)
# Builds in FUZZ_BUILD_DIR (default ./build-fuzz), first runs every target once over its
# committed corpus (tests/fuzz/corpus/<target>/, ctest label fuzz), then fuzzes each from a
# temporary copy of that corpus, so the committed one never grows by itself. Exits non-zero on
# any crash, leak, sanitizer report or broken check; the input that caused it is kept in
# FUZZ_BUILD_DIR/fuzz-artifacts/ and its path printed, with the command that reproduces it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-2}"
seconds="${1:-30}"
targets=(wire_header wire_records udp_reassembler control_messages report_frame)

if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [seconds-per-target]   (a whole number, at least 1; default 30)" >&2
  exit 2
fi
"$root/scripts/setup/install_deps.sh" # clang and libFuzzer among the rest

cmake -S "$root" -B "$build_dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DNETPROF_FUZZ=ON -DNETPROF_BUILD_TESTS=OFF \
  -DNETPROF_BUILD_BENCH=OFF >/dev/null
build_targets=()
for name in "${targets[@]}"; do
  build_targets+=(--target "fuzz_$name")
done
cmake --build "$build_dir" -j"$jobs" "${build_targets[@]}"

artifacts="$build_dir/fuzz-artifacts" # made by tests/fuzz/CMakeLists.txt
logs="$build_dir/fuzz-logs"
mkdir -p "$logs"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
touch "$work/start"

echo "== fuzz: every committed input once (regression)"
if ! (cd "$build_dir" && ctest --output-on-failure --no-tests=error -L fuzz); then
  echo "!! fuzz: a committed corpus input fails; saved as:"
  find "$artifacts" -type f -newer "$work/start" -printf '!! crash input: %p\n'
  echo "!! replay one with: $build_dir/tests/fuzz/fuzz_<target> <crash input>"
  exit 1
fi

failed=()
for name in "${targets[@]}"; do
  binary="$build_dir/tests/fuzz/fuzz_$name"
  log="$logs/$name.log"
  cp -r "$root/tests/fuzz/corpus/$name" "$work/$name"
  echo "== fuzz: $name for ${seconds} s (log: $log)"
  # -timeout: one input taking longer than this is a hang, reported like a crash.
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$name-" "$work/$name" >"$log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" || true
    echo "   corpus grew from $(ls "$root/tests/fuzz/corpus/$name" | wc -l) to $(ls "$work/$name" | wc -l) inputs (not kept)"
  else
    failed+=("$name")
    echo "!! fuzz: $name FAILED; the end of its log:"
    tail -n 60 "$log"
    # libFuzzer names the input it saved ("Test unit written to PATH").
    input="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    if [ -n "$input" ]; then
      echo "!! crash input: $input"
      echo "!! reproduce:   $binary $input"
    fi
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, no crash"
