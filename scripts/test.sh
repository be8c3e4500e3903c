#!/usr/bin/env bash
# The second of the README's two commands (and what CI runs): installs what is missing, builds,
# and runs the whole test suite: unit, transport contract and end-to-end tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/scripts/setup/install_deps.sh"
"$root/scripts/setup/build.sh"
cd "$build_dir"
ctest --output-on-failure -j2 --timeout 300
