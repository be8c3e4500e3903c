#!/usr/bin/env bash
# Formats the C++ sources with the checked-in .clang-format, or (with --check) lists the files
# that differ from what clang-format makes of them and exits 1. CI runs the check.
#
#   scripts/setup/format.sh [--check]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || "$root/scripts/setup/install_deps.sh"

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: scripts/setup/format.sh [--check]" >&2; exit 2 ;;
esac

mapfile -t sources < <(git ls-files '*.cpp' '*.hpp')
if ! $check; then
  clang-format -i "${sources[@]}"
  exit 0
fi
# One clang-format per batch of files rather than per file: the check took a minute of process
# start-ups alone. --dry-run --Werror names each differing file in an "error:" line; a failure
# that names no file (clang-format itself broken) fails the check too.
status=0
said=$(printf '%s\0' "${sources[@]}" | xargs -0 -P2 -n 64 clang-format --dry-run --Werror 2>&1) ||
  status=$?
mapfile -t differing < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$said" | cut -d: -f1 | sort -u)
if ((status != 0 && ${#differing[@]} == 0)); then
  echo "format: clang-format failed (status $status):" >&2
  echo "$said" >&2
  exit 1
fi
if ((${#differing[@]} > 0)); then
  echo "format: ${#differing[@]} of ${#sources[@]} files differ from clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -1) (run scripts/setup/format.sh):" >&2
  printf '  %s\n' "${differing[@]}" >&2
  exit 1
fi
echo "format: all ${#sources[@]} C++ files match .clang-format"
