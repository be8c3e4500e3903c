#!/usr/bin/env bash
# The second of the README's two commands (and what CI runs): installs what the tests need and
# is missing (install_deps.sh --test), builds with the tests and benchmarks (turning them back
# on in a build folder scripts/quickstart.sh configured without them), and runs the whole test
# suite: unit, transport contract and end-to-end tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/scripts/setup/install_deps.sh" --test
"$root/scripts/setup/build.sh" -DNETPROF_BUILD_TESTS=ON -DNETPROF_BUILD_BENCH=ON
cd "$build_dir"
ctest --output-on-failure -j2 --timeout 300
