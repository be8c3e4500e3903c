# shellcheck shell=bash disable=SC2154  # sourced after bench_lib.sh: reads python and work
# For benchmark scripts that need iceoryx's RouDi (sourced, not run): uses one already running,
# or starts one and stops it by its PID (call stop_roudi when done with it, and from the EXIT
# trap).

roudi_socket=/tmp/roudi # iceoryx 2.0's IOX_UDS_SOCKET_PATH_PREFIX + "roudi"
roudi_pid=""            # the `timeout` wrapping the iox-roudi started here
roudi_note=""

# True when a RouDi answers on its socket (a datagram connect fails when no one is bound).
roudi_listening()
{
  "$python" -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).connect(sys.argv[1])' \
    "$roudi_socket" 2>/dev/null
}

# A RouDi that a benchmark script started in a run killed before its cleanup (its environment
# names that script's PID, now gone) is stopped: otherwise the new one could not take RouDi's
# lock. Files such a RouDi leaves in /dev/shm and /tmp when killed outright, the next iox-roudi
# reclaims.
stop_stale_roudi()
{
  local pid owner
  for pid in $(pgrep -x iox-roudi || true); do
    owner=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^NETPROF_BENCH_ROUDI_OWNER=//p')
    if [[ -z $owner ]] || kill -0 "$owner" 2>/dev/null; then continue; fi
    echo "stopping iox-roudi (PID $pid) left behind by an earlier run" >&2
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# One RouDi for every run that needs it (each local pair would otherwise start and stop its own,
# seconds each); its lifetime is bounded should this script be killed before it can stop it.
# Returns 1, saying why, when it does not get ready within 10 s.
start_roudi()
{
  stop_stale_roudi
  if roudi_listening; then
    roudi_note="the iox-roudi already running (not started here)"
    return 0
  fi
  NETPROF_BENCH_ROUDI_OWNER=$$ timeout --kill-after=5 3600 iox-roudi >"$work/roudi.log" 2>&1 &
  roudi_pid=$!
  roudi_note="an iox-roudi started here (PID $roudi_pid)"
  for _ in $(seq 200); do
    roudi_listening && return 0
    kill -0 "$roudi_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "iox-roudi did not get ready; its log ends:" >&2
  tail -n 3 "$work/roudi.log" >&2 || true
  stop_roudi
  return 1
}

# Stops the RouDi started here, by PID: `timeout` passes the SIGTERM on and SIGKILLs it 5 s later
# if need be. Stopped so, RouDi removes its shared memory and sockets itself; killed, it cannot,
# and what it made (named in its log) is removed here.
stop_roudi()
{
  [[ -n $roudi_pid ]] || return 0
  local status=0
  kill -TERM "$roudi_pid" 2>/dev/null || true
  wait "$roudi_pid" 2>/dev/null || status=$?
  roudi_pid=""
  if ((status == 137)) && ! roudi_listening; then
    echo "iox-roudi had to be killed; removing its shared memory and sockets" >&2
    sed -n 's/^Reserving .* in the shared memory \[\(.*\)\]$/\1/p' "$work/roudi.log" |
      while read -r segment; do rm -f "/dev/shm/$segment"; done
    rm -f "$roudi_socket" /tmp/roudi.lock /tmp/iox-unique-roudi.lock
  fi
}
