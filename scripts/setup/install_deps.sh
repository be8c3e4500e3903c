#!/usr/bin/env bash
# Installs, from Debian's packages, whatever netprof needs to build, test and plot that is not
# already installed. libsodium-dev is for address-proof cookies and --key-file; libnng-dev for
# the nng transport; cyclonedds-dev and cyclonedds-tools (idlc, ddsperf) for the dds transport;
# libiceoryx-posh-dev and iceoryx (iox-roudi) for the iceoryx transport;
# python3-scipy for scripts/tools/compare.py's Mann-Whitney U test. clang and
# libclang-rt-14-dev are for scripts/setup/fuzz.sh (libFuzzer); the sanitizer runtimes
# scripts/setup/sanitize.sh uses come with g++ (libgcc-12-dev depends on them). dpkg-dev
# (dpkg-shlibdeps) and file are what CPack's Debian package needs to work out its Depends;
# man-db and groff-base render netprof(1) in the packaging test (tests/package). openssh-server
# and openssh-client are for multi-host launching (scripts/tools/launch.py) and its lab
# (scripts/lab/lab.py, one sshd per namespace).
# Safe to run again: it asks apt only when something is missing.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  libboost-program-options-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libzmq3-dev cppzmq-dev
  libsodium-dev
  libnng-dev
  libiceoryx-posh-dev iceoryx
  cyclonedds-dev cyclonedds-tools
  python3 python3-zmq
  python3-matplotlib python3-scipy
  iproute2
  sockperf
  openssh-server openssh-client
  clang libclang-rt-14-dev clang-format
  dpkg-dev file man-db groff-base
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "netprof: all build dependencies are installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "netprof: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "netprof: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
