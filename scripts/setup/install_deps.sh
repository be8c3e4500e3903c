#!/usr/bin/env bash
# Installs, from Debian's packages, what netprof needs that is not already installed, at one of
# three levels, each including the one before:
#   --profile  build the netprof binary and run a profile (scripts/quickstart.sh): the compiler,
#              CMake, Boost, nlohmann-json, libsodium-dev (address-proof cookies, --key-file)
#              and each transport's library.
#   --test     build and run every test (scripts/test.sh): googletest and google-benchmark,
#              python3, what each transport's tests add, python3-matplotlib
#              (netprof-plot) and python3-scipy (netprof-compare's Mann-Whitney U test),
#              iproute2 (namespaces), sockperf (the peer scripts/bench compares with), openssh-server and openssh-client (launch.py and its lab,
#              one sshd per namespace), dpkg-dev and file (CPack's Debian package works out
#              its Depends with them), man-db and groff-base (the packaging test renders the
#              man pages), lintian (the packaging test checks the .deb).
#   --all      (the default) CI's other stages too: clang and libclang-rt-14-dev for
#              scripts/setup/fuzz.sh (libFuzzer), clang-format for scripts/setup/format.sh. The
#              sanitizer runtimes scripts/setup/sanitize.sh uses come with g++.
# Each transport declares its own packages in transports/<name>/packages, one line per level
# ("profile: PACKAGE..." and "test: PACKAGE...", # comments), gathered here.
# No service is started while installing, and openssh-server, when this script is what
# installs it, is left disabled (/etc/ssh/sshd_not_to_be_run, Debian's switch for it): the
# lab starts its own sshd per namespace and needs no daemon on the host. Delete that file to
# run the host's sshd. mosquitto and redis-server, when this script installs them, have their
# services disabled (each would start a server at every boot): the local pair and the tests
# start their own. --list prints the level's packages instead. Safe to run again: it asks apt only when something is missing.
set -euo pipefail

level=all list_only=0
for arg in "$@"; do
  case "$arg" in
    --all) level=all ;;
    --profile) level=profile ;;
    --test) level=test ;;
    --list) list_only=1 ;;  # print the level's packages, one a line, and install nothing
    *) echo "install_deps.sh: unknown option '$arg' (expected --profile, --test or --all, and --list)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The packages every transport's file names for one level ("profile" or "test").
transport_packages() {
  local file wanted=$1 line_level names
  for file in "$root"/transports/*/packages; do
    [ -f "$file" ] || continue
    while read -r line_level names; do
      if [ "$line_level" = "$wanted:" ]; then
        echo "$names"
      fi
    done <"$file"
  done
}

packages=(
  g++ cmake make pkg-config
  libboost-program-options-dev nlohmann-json3-dev
  libsodium-dev
)
read -r -a more <<<"$(transport_packages profile | tr '\n' ' ')"
packages+=("${more[@]}")
if [ "$level" != profile ]; then
  read -r -a more <<<"$(transport_packages test | tr '\n' ' ')"
  packages+=("${more[@]}")
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    python3 python3-matplotlib python3-scipy
    iproute2
    sockperf
    openssh-server openssh-client
    dpkg-dev file man-db groff-base lintian
  )
fi
if [ "$level" = all ]; then
  packages+=(clang libclang-rt-14-dev clang-format)
fi

if [ "$list_only" -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for package in "${packages[@]}"; do
  installed "$package" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "netprof: every package of the '$level' set is installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "netprof: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi

# policy-rc.d answering 101 ("action forbidden") is how Debian's maintainer scripts are told
# to start nothing (invoke-rc.d and deb-systemd-invoke both ask it); one already there is kept.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# written by netprof install_deps.sh for the length of one apt-get install\nexit 101\n' |
    "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 0755 "$policy"
  own_policy=1
fi
remove_policy() { if [ "$own_policy" -eq 1 ]; then "${as_root[@]}" rm -f "$policy"; fi; }
trap remove_policy EXIT
if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
  "${as_root[@]}" mkdir -p /etc/ssh
  "${as_root[@]}" touch /etc/ssh/sshd_not_to_be_run
  echo "netprof: openssh-server is installed for the lab's own sshd; the host's ssh service stays off" \
    "(/etc/ssh/sshd_not_to_be_run)"
fi

echo "netprof: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
if [[ " ${missing[*]} " == *" mosquitto "* ]]; then
  # update-rc.d drops both the systemd unit's and the init script's boot links, and needs no
  # running systemd (a container, a chroot).
  "${as_root[@]}" update-rc.d mosquitto disable >/dev/null 2>&1 || true
  echo "netprof: mosquitto is installed for the mqtt transport's own brokers; its service stays" \
    "disabled (systemctl enable mosquitto to run one at boot)"
fi
if [[ " ${missing[*]} " == *" redis-server "* ]]; then
  # As mosquitto: policy-rc.d kept its postinst from starting it; its boot links go too.
  "${as_root[@]}" update-rc.d redis-server disable >/dev/null 2>&1 || true
  echo "netprof: redis-server is installed for the redis transport's own servers; its service" \
    "stays disabled (systemctl enable redis-server to run one at boot)"
fi
