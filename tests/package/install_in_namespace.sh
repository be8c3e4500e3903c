#!/usr/bin/env bash
# Installs a netprof .deb with apt, as on a clean Debian, inside the private mount namespace
# test_deb.py runs this in (unshare --mount --propagation private), runs the installed files,
# then removes the package and checks it left nothing (no __pycache__). /usr, /etc and /var are
# overlays whose changes live in a tmpfs, so the host's own are never written; the source and
# build folders are hidden under empty tmpfs mounts, so the installed files can use nothing
# from them. Dies at the first failure, naming it.
#   install_in_namespace.sh DEB WORK_DIR HIDDEN_DIR...
set -euo pipefail
deb="$1" work="$2"
shift 2
step() { echo "== package: $*"; }

layers="$work/layers" # overlayfs needs its upper and work dirs off overlayfs: a tmpfs
mkdir -p "$layers"
mount -t tmpfs netprof-package "$layers"
for dir in usr etc var; do
  mkdir -p "$layers/$dir/upper" "$layers/$dir/work"
  mount -t overlay netprof-package \
    -o "lowerdir=/$dir,upperdir=$layers/$dir/upper,workdir=$layers/$dir/work" "/$dir"
done
for hidden in "$@"; do
  mount -t tmpfs netprof-hidden "$hidden"
done
# man-db's trigger would rebuild the whole man index; man finds the page without it.
rm -f /var/lib/man-db/auto-update

step "apt-get install $(basename "$deb")"
cd "$work"
DEBIAN_FRONTEND=noninteractive timeout 120 apt-get install -y -q --no-install-recommends "$deb"

step "netprof on PATH: $(command -v netprof)"
test "$(command -v netprof)" = /usr/bin/netprof
netprof --version

step "netprof --local-pair -t 1"
timeout 60 netprof --local-pair -t 1 --wait 20

step "netprof-sweep without --netprof"
timeout 90 netprof-sweep --transports udp --sizes 64 --duration 0.3 --warmup 0.1 --out "$work/sweep"
test -s "$work/sweep/sweep.csv"

step "man netprof: $(man -w netprof)"
test "$(man -w netprof)" = /usr/share/man/man1/netprof.1.gz
test "$(man -w netprof-sweep)" = /usr/share/man/man1/netprof-sweep.1.gz

step "netprof-compare without scipy says what is missing"
if ! /usr/bin/python3 -c "import scipy" 2>/dev/null; then
  set +e
  netprof-compare --baseline "$work/sweep/sweep.csv" --contender "$work/sweep/sweep.csv" 2>"$work/compare.err"
  status=$?
  set -e
  cat "$work/compare.err"
  test "$status" -eq 2
  grep -q "python3-scipy" "$work/compare.err"
fi

step "apt-get remove netprof leaves nothing under /usr/share/netprof"
DEBIAN_FRONTEND=noninteractive timeout 120 apt-get remove -y -q netprof
if [ -e /usr/share/netprof ]; then
  echo "left behind:" && find /usr/share/netprof
  exit 1
fi
echo "== package: installed, ran and removed"
