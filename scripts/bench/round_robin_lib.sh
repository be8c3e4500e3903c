# Shared by the round-robin benchmark scripts (transports/{tcp,nng,zmq}/bench/
# bench_*_round_robin.sh; sourced after bench_lib.sh): RMR's experiment, one sender dealing
# --count messages to --receivers receivers, netprof against a bare sender of the transport,
# pinned (the sender on the first CPU of --cpu, every receiver on the second), the figure the
# sender's rate.

# The defaults (-s 128, -q 1000000, a 0.5 s warm-up, 1,000,000 messages to 5 receivers, 3
# rounds) and the options every such script takes: `round_robin_options "$@"`.
round_robin_options()
{
  repeat=3
  count=1000000
  receivers=5
  payload=128
  queue_length=1000000
  warmup_seconds=0.5
  bench_common_options repeat cpu
  bench_option --count count N positive
  bench_option --receivers receivers N '^([1-9]|[1-5][0-9]|6[0-4])$' "1 to 64"
  bench_parse_options "$@"
}

# After bench_begin: each run's time limit, and the placement line.
round_robin_begin()
{
  limit=$((60 + count / 10000))
  echo "pinned: sender on CPU ${cpus%,*}, all $receivers receivers on CPU ${cpus#*,}; $repeat interleaved rounds"
}

# One netprof group dealing by itself: N subscribers started first, each with the arguments
# in the array subscriber_transport, then the publisher with publisher_transport; the
# subscribers' ends are awaited (each has its own deadline) so no round overlaps the next:
# `round_robin_dealt_group JSON`.
round_robin_dealt_group()
{
  local json=$1 i pids=()
  for ((i = 1; i <= receivers; i++)); do
    timeout --kill-after=5 "$limit" "$netprof" -i "$i" "${subscriber_transport[@]}" \
      -q "$queue_length" --quiet --cpu "${cpus#*,}" --wait 20 >"$work/sub.$i.out" 2>&1 &
    pids+=($!)
  done
  run_netprof "$json" -i 0 "${publisher_transport[@]}" --subscribers "$receivers" \
    --fanout round-robin --count "$count" -s "$payload" -q "$queue_length" \
    --warmup-time "$warmup_seconds" --cpu "${cpus%,*}" --wait 20
  for i in "${pids[@]}"; do wait "$i" || true; done
}

# A round of a transport that deals by itself: the bare receivers' least and most, netprof's
# shares and loss: `round_robin_dealt_round RUN`.
round_robin_dealt_round()
{
  echo "bare shares $(field "$work/bare.$1.json" least_share)-$(field "$work/bare.$1.json" most_share); netprof $(dealt_shares "$work/netprof.$1.json")"
}

# Each round's line (ROUND_FUNCTION RUN prints it), then the table of the sender's medians:
# `round_robin_report LABEL ROUND_FUNCTION`.
round_robin_report()
{
  local label=$1 describe=$2 run rates
  warn_unless_release "$work/netprof.1.json"
  rates=$(runs_sender_rate netprof)
  for ((run = 1; run <= repeat; run++)); do
    echo "round $run: $("$describe" "$run")"
  done
  echo
  echo "round-robin to $receivers over $label, $count messages, -s $payload, vs $(basename "$bare"): the sender's messages per second; medians of $repeat rounds; ratio = netprof / bare"
  "$python" "$table" "$label round-robin to $receivers|msg/s|reference||$rates|$(runs_of bare messages_per_second)"
}
