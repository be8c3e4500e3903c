# shellcheck shell=bash disable=SC2154  # sourced after bench_lib.sh: reads its work, running, python, table
# For the benchmarks that measure through a broker (sourced, not run): transports/mqtt/bench/
# bench_mqtt.sh and transports/redis/bench/bench_redis.sh start a broker of their own (mosquitto,
# redis-server) beside netprof and the bare programs, and close on the same table.

# Starts COMMAND in the background, its output in LOG, and waits (at most 10 s) until it accepts
# connections on 127.0.0.1:PORT; exits 1 with the log's last line when it exits first or does
# not accept by then. Its PID joins bench_lib.sh's running list, so bench_cleanup stops it
# (SIGTERM) on exit: `broker_start NAME PORT LOG COMMAND...`.
broker_start()
{
  local name=$1 port=$2 log=$3 pid try
  shift 3
  "$@" >"$log" 2>&1 &
  pid=$!
  running+=("$pid")
  for ((try = 0; try < 200; try++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { echo "$name exited: $(tail -1 "$log")" >&2; exit 1; }
    sleep 0.05
  done
  echo "$name did not accept connections on 127.0.0.1:$port within 10 s: $(tail -1 "$log")" >&2
  exit 1
}

# The closing lines: a note when netprof is not a Release build, the table of ROWs (ratio_table.py
# NAME|UNIT|DIRECTION|TARGET|NETPROF RUNS|BARE RUNS), the load average after:
# `broker_results ROW...`.
broker_results()
{
  local report
  for report in "$work"/netprof*.1.json; do
    [[ -f $report ]] && warn_unless_release "$report"
    break
  done
  echo "one-way p50 = RTT p50 / 2; stream: messages received per second; medians of $repeat interleaved runs"
  "$python" "$table" "$@"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
