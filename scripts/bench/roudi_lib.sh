# shellcheck shell=bash disable=SC2154  # sourced after bench_lib.sh: reads python and work
# For benchmark scripts that need iceoryx's RouDi (sourced, not run): uses one already running,
# or starts one for the whole script and stops it by its PID (call stop_roudi from the EXIT trap).

roudi_socket=/tmp/roudi # iceoryx 2.0's IOX_UDS_SOCKET_PATH_PREFIX + "roudi"
roudi_pid=""
roudi_note=""

roudi_listening()
{
  "$python" -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).connect(sys.argv[1])' \
    "$roudi_socket" 2>/dev/null
}

# One RouDi for every run (each local pair would otherwise start and stop its own, seconds each);
# its lifetime is bounded should this script be killed before it can stop it.
start_roudi()
{
  if roudi_listening; then
    roudi_note="the iox-roudi already running (not started here)"
    return 0
  fi
  timeout --kill-after=5 3600 iox-roudi >"$work/roudi.log" 2>&1 &
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
  exit 1
}

stop_roudi()
{
  [[ -n $roudi_pid ]] || return 0
  kill -TERM "$roudi_pid" 2>/dev/null || true
  wait "$roudi_pid" 2>/dev/null || true
  roudi_pid=""
}

