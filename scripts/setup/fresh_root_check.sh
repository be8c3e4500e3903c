#!/usr/bin/env bash
# Runs the README's two commands as a newcomer would on a fresh Debian bookworm: a root made
# with debootstrap (default variant, from the mirror this host's apt uses), the project cloned
# into /root/netprof (root's home is 0700 there, as on Debian), both commands run as root.
# Not part of .ci/run: it takes 20-40 minutes (debootstrap, ~270 packages, a full build and
# the whole test suite). Needs root, debootstrap, git and unshare.
#   fresh_root_check.sh [--keep] [--quickstart-only] [REF]   (REF: a commit, default HEAD)
# Everything runs in its own mount and PID namespaces: the bind mounts, and any process an
# install or a test leaves behind, end with it. The root is removed afterwards unless --keep.
# FRESH_BASE=DIR copies DIR, a root debootstrap made and nothing touched since, instead of
# running debootstrap again (5 minutes saved when rerunning).
# Prints the time each command took, what the first one installed, and whether the
# commands left anything listening or an ssh daemon running.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
keep=0 quickstart_only=0 ref=HEAD
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    --quickstart-only) quickstart_only=1 ;;
    -*) echo "fresh_root_check.sh: unknown option '$arg'" >&2; exit 2 ;;
    *) ref="$arg" ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "fresh_root_check.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
for tool in debootstrap git unshare chroot; do
  command -v "$tool" >/dev/null || { echo "fresh_root_check.sh: needs $tool (apt-get install debootstrap)" >&2; exit 2; }
done
commit="$(git -C "$repo" rev-parse --verify "$ref^{commit}")"

# The mirror this host's apt uses (deb822 or one-line sources), else Debian's own.
mirror="$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*debian\)[[:space:]]*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)"
[ -n "$mirror" ] || mirror="$(sed -n 's/^deb[[:space:]]\+\(http[^[:space:]]*debian\)[[:space:]]\+bookworm[[:space:]].*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n1)"
mirror="${mirror:-http://deb.debian.org/debian}"

fresh="$(mktemp -d /var/tmp/netprof-fresh-root.XXXXXX)"
chmod 0755 "$fresh" # a root folder every user may enter, as / is (mktemp makes it 0700)
cleanup() {
  if [ "$keep" -eq 1 ]; then echo "== fresh: root kept in $fresh"; else rm -rf --one-file-system "$fresh"; fi
}
trap cleanup EXIT
step() { echo "== fresh: $* ($(date -u +%H:%M:%S))"; }

start=$SECONDS
if [ -n "${FRESH_BASE:-}" ]; then
  step "copying the untouched debootstrap root $FRESH_BASE"
  cp -a "$FRESH_BASE/." "$fresh/"
else
  step "debootstrap bookworm from $mirror into $fresh"
  debootstrap bookworm "$fresh" "$mirror" >"$fresh.debootstrap.log" 2>&1 ||
    { tail -n 20 "$fresh.debootstrap.log"; exit 3; }
  rm -f "$fresh.debootstrap.log"
fi
echo "fresh root: $((SECONDS - start)) s"
cat >"$fresh/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
EOF
cp /etc/resolv.conf "$fresh/etc/resolv.conf"
echo netprof-fresh >"$fresh/etc/hostname"

step "git clone into /root/netprof at ${commit:0:12}"
chmod 0700 "$fresh/root"
git clone -q --no-checkout "$repo" "$fresh/root/netprof"
git -C "$fresh/root/netprof" checkout -q "$commit"

# Inside the namespaces: mounts, then the two commands in the chroot, timed.
inside=$(cat <<'INSIDE'
set -euo pipefail
fresh="$1" quickstart_only="$2"
# The root a mount point of its own, as / is on a real machine: `ip netns exec` and unshare
# change its propagation, which fails on a folder that is not one.
mount --bind "$fresh" "$fresh"
mount -t proc proc "$fresh/proc"
mount --rbind /sys "$fresh/sys"
mount --rbind /dev "$fresh/dev"
mount -t tmpfs -o mode=1777 shm "$fresh/dev/shm"
mount -t tmpfs -o mode=0755 run "$fresh/run"
mount -t tmpfs -o mode=1777 tmp "$fresh/tmp"
in_root() { chroot "$fresh" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_root dpkg-query -W -f='${Package}\n' | sort >"$fresh/root/packages-before"
echo "== fresh: ./scripts/quickstart.sh ($(date -u +%H:%M:%S))"
start=$SECONDS
in_root bash -c 'cd /root/netprof && ./scripts/quickstart.sh'
echo "quickstart.sh (to the first report): $((SECONDS - start)) s"
in_root dpkg-query -W -f='${Package}\n' | sort >"$fresh/root/packages-quickstart"
echo "quickstart.sh installed $(comm -13 "$fresh/root/packages-before" "$fresh/root/packages-quickstart" | wc -l) packages:"
comm -13 "$fresh/root/packages-before" "$fresh/root/packages-quickstart" | tr '\n' ' ' | fold -s -w 100
echo
if [ "$quickstart_only" -eq 0 ]; then
  echo "== fresh: ./scripts/test.sh ($(date -u +%H:%M:%S))"
  start=$SECONDS
  status=0
  in_root bash -c 'cd /root/netprof && ./scripts/test.sh' || status=$?
  echo "test.sh: $((SECONDS - start)) s, exit status $status"
  in_root dpkg-query -W -f='${Package}\n' | sort >"$fresh/root/packages-test"
  echo "test.sh added $(comm -13 "$fresh/root/packages-quickstart" "$fresh/root/packages-test" | wc -l) packages"
fi
# Left running: this PID namespace holds only what the commands started.
left="$(ps -eo pid=,comm= | awk '$1 != 1 && $2 != "ps" && $2 != "awk" && $2 != "bash"')"
if [ -n "$left" ]; then echo "== fresh: FAILED, left running:"; echo "$left"; exit 1; fi
echo "== fresh: nothing left running (no sshd)"
exit "${status:-0}"
INSIDE
)
step "README's commands in the fresh root"
unshare --mount --propagation private --pid --fork --mount-proc bash -c "$inside" inside "$fresh" "$quickstart_only"
