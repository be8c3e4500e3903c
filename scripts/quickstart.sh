#!/usr/bin/env bash
# The first of the README's two commands: installs what a profile needs and is missing (not
# the test tools: install_deps.sh --profile), builds a Release netprof without the tests and
# benchmarks, and runs a real profile: a subscriber and a publisher as two processes over UDP
# loopback. scripts/test.sh later adds the rest to the same build folder, rebuilding nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup/install_deps.sh" --profile
"$root/scripts/setup/build.sh" -DNETPROF_BUILD_TESTS=OFF -DNETPROF_BUILD_BENCH=OFF
echo
echo "\$ build/netprof --local-pair -t 3 $*"
exec "${BUILD_DIR:-$root/build}/netprof" --local-pair -t 3 "$@"
