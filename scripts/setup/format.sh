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
differing=()
for file in "${sources[@]}"; do
  clang-format "$file" | cmp -s - "$file" || differing+=("$file")
done
if ((${#differing[@]} > 0)); then
  echo "format: ${#differing[@]} of ${#sources[@]} files differ from clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -1) (run scripts/setup/format.sh):" >&2
  printf '  %s\n' "${differing[@]}" >&2
  exit 1
fi
echo "format: all ${#sources[@]} C++ files match .clang-format"
