#!/usr/bin/env bash
# The first of the README's two commands: installs what is missing, builds a Release netprof
# and runs a real profile: a subscriber and a publisher as two processes over UDP loopback.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup/install_deps.sh"
"$root/scripts/setup/build.sh"
echo
echo "\$ build/netprof --local-pair -t 3 $*"
exec "$root/build/netprof" --local-pair -t 3 "$@"
