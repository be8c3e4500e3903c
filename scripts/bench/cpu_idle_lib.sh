# shellcheck shell=bash disable=SC2034,SC2154  # sourced after bench_lib.sh; idles and idle_note are the caller's
# Keeps idle CPUs polling instead of halting, and puts the host's idle settings back (sourced,
# not run).
#
# Why: a CPU that halts when idle takes a while to wake, and on a VM much longer: a halted vCPU
# leaves the guest and is woken through the host. Measured on the VMs we use (haltpoll cpuidle
# driver, guest_halt_poll_ns 0 as the host set it): bench/bare_mq_pingpong --wait block, one-way
# p50, 26-31 us halting against 3.7-5.5 us with guest_halt_poll_ns at the kernel's default of
# 200000. A blocking ping-pong's figure is then mostly the wake-up, whose cost depends on how
# long each side had been idle, so a program doing more bookkeeping after each message reads
# faster than a bare one. Polling when idle, a blocking figure is the kernel's wake-up of a
# sleeping thread and the program's own work.
#
#   poll_when_idle A,B    (or none: every CPU, for an unpinned run)
#                         with the haltpoll driver (a KVM guest): its guest_halt_poll_ns, which
#                         is host-wide, to $halt_poll_ns (200000 unless the script sets it: poll
#                         up to 200 us before halting; a paced script sets more than its period),
#                         and its first poll as long, so no idle period halts while the poll
#                         window grows; otherwise every idle state of CPUs A and B but POLL
#                         disabled. Returns 1 and sets idle_note when it cannot (not root, no
#                         cpuidle states to change).
#   restore_idle          puts back what poll_when_idle changed
#
# bench_lib.sh's exit hook restores too, so an interrupted script leaves the host as it found
# it (not after a SIGKILL: then write back what the script's host line said was there).

# Where the CPUs' idle states and the haltpoll driver's settings are (other folders only in this
# library's test).
cpu_sysfs=${cpu_sysfs:-/sys/devices/system/cpu}
haltpoll_parameters=${haltpoll_parameters:-/sys/module/haltpoll/parameters}
halt_poll_ns=${halt_poll_ns:-200000} # the kernel's default for guest_halt_poll_ns
# What poll_when_idle changed: "FILE VALUE" pairs to write back.
idle_changes=()
idle_note=""

# Writes VALUE to FILE (a sysfs setting) and remembers what was there: `idle_set FILE VALUE`.
idle_set()
{
  local was
  was=$(cat "$1" 2>/dev/null) || was=""
  if [[ -z $was ]] || ! { echo "$2" > "$1"; } 2>/dev/null; then
    idle_note="cannot write $1 (needs root)"
    return 1
  fi
  idle_changes+=("$1 $was")
}

poll_when_idle()
{
  local cpu state cpus=$1
  idle_note=""
  [[ $cpus != none ]] || cpus=$(seq -s, 0 $(($(nproc) - 1)))
  if [[ $(cat "$cpu_sysfs/cpuidle/current_driver" 2>/dev/null) == haltpoll ]]; then
    if ! idle_set "$haltpoll_parameters/guest_halt_poll_ns" "$halt_poll_ns" ||
      ! idle_set "$haltpoll_parameters/guest_halt_poll_grow_start" "$halt_poll_ns"; then
      restore_idle
      return 1
    fi
    return 0
  fi
  for cpu in ${cpus//,/ }; do
    for state in "$cpu_sysfs/cpu$cpu"/cpuidle/state*; do
      [[ -d $state && $(cat "$state/name") != POLL ]] || continue
      [[ $(cat "$state/disable" 2>/dev/null) != 1 ]] || continue # off already: not ours
      if ! idle_set "$state/disable" 1; then
        restore_idle
        return 1
      fi
    done
  done
  if ((${#idle_changes[@]} == 0)); then
    idle_note="no idle state to change on CPUs $cpus (no cpuidle driver)"
    return 1
  fi
}

restore_idle()
{
  local change
  for change in "${idle_changes[@]}"; do
    echo "${change##* }" > "${change% *}" 2>/dev/null ||
      echo "could not put back ${change% *}: write ${change##* } to it" >&2
  done
  idle_changes=()
}

# Declares a script's --idle option (host, poll or both; the variable `idle`, both by default).
bench_idle_option()
{
  bench_option --idle idle="${idle:-both}" 'host|poll|both' choice \
    "host: the CPUs idle as the host set them; poll: idle CPUs poll instead of halting"
}

# The idle settings a script measures under, from its --idle option (host, poll or both):
# `choose_idles MODE CPUS` sets `idles` to "host", "poll" or "host poll", leaving poll out, with
# a line on stderr, when it cannot be had (and exiting 2 when poll alone was asked for); and
# `host_idle` to the host's own setting, for the script's host line (cpu_idle_description).
choose_idles()
{
  host_idle=$(cpu_idle_description)
  idles=host
  [[ $1 == host ]] || idles=poll
  [[ $1 != both ]] || idles="host poll"
  [[ $idles == *poll* ]] || return 0
  if poll_when_idle "$2"; then
    restore_idle
    return 0
  fi
  echo "idle CPUs polling: not measured, $idle_note" >&2
  [[ $1 != poll ]] || exit 2
  idles=host
}

# What a row measured under IDLE (one of $idles) says: `idle_label IDLE`.
idle_label()
{
  if [[ $1 == host ]]; then echo "host's idle"; else echo "idle polls"; fi
}

# Around each measurement under IDLE: `enter_idle IDLE CPUS` ... `restore_idle`.
enter_idle()
{
  [[ $1 == host ]] || poll_when_idle "$2"
}

# The CPUs' idle driver and, for haltpoll, how long an idle vCPU polls before it halts.
cpu_idle_description()
{
  local driver
  driver=$(cat "$cpu_sysfs/cpuidle/current_driver" 2>/dev/null) || driver=none
  if [[ $driver == haltpoll ]]; then
    echo "cpuidle haltpoll, guest_halt_poll_ns" \
      "$(cat "$haltpoll_parameters/guest_halt_poll_ns" 2>/dev/null)"
  else
    echo "cpuidle $driver"
  fi
}

bench_exit_hooks+=(restore_idle)
