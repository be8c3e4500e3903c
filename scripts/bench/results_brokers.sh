#!/usr/bin/env bash
# The DDS evaluation's question rerun (docs/results.md, "DDS against brokers"): ping-pong latency
# and jitter by payload size for DDS (Cyclone, Fast DDS), the brokers (MQTT through mosquitto,
# Redis pub/sub) and the kernel baselines, 1-to-1:
#   - on this host: scripts/tools/sweep.py, which starts a mosquitto, a redis-server and an
#     iox-roudi of its own as each transport needs;
#   - across hosts: a lab of 3 network namespaces (scripts/lab/lab.py): h0 publishes, h1
#     subscribes, h2 runs the broker (mosquitto, then redis-server, on its lab address only),
#     every point through scripts/tools/launch.py (DDS does not run across hosts yet: issue 33).
# Then scripts/tools/plot.py draws each sweep. Every server and the lab are stopped (by PID,
# lab.py down) on any exit. Needs root (the lab) and what install_deps.sh installs.
#
#   scripts/bench/results_brokers.sh [--out DIR] [--netprof PATH] [--repetitions N]
#       [--sizes LIST] [--local-transports LIST] [--lab-transports LIST]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=/usr/bin/python3
out=results/brokers-$(date -u +%Y%m%d-%H%M%S)
netprof=$root/build/netprof
repetitions=3
sizes=64,1024,16384,65536
local_transports=udp,tcp,uds,shm,dds,fastdds,mqtt,redis
lab_transports=udp,tcp,mqtt,redis
while (($#)); do
  case $1 in
    --out) out=$2 ;;
    --netprof) netprof=$2 ;;
    --repetitions) repetitions=$2 ;;
    --sizes) sizes=$2 ;;
    --local-transports) local_transports=$2 ;;
    --lab-transports) lab_transports=$2 ;;
    *) echo "usage: $0 [--out DIR] [--netprof PATH] [--repetitions N] [--sizes LIST]" \
      "[--local-transports LIST] [--lab-transports LIST]" >&2; exit 2 ;;
  esac
  shift 2
done
netprof=$(realpath "$netprof")
[[ -x $netprof ]] || { echo "no netprof at $netprof (build first, or --netprof)" >&2; exit 2; }
mkdir -p "$out"
sweep_options=(--mode ping-pong --sizes "$sizes" --repetitions "$repetitions" --duration 1
  --netprof "$netprof")

lab_dir=$(mktemp -d "${TMPDIR:-/tmp}/netprof-results-lab.XXXXXX")
server_pid=""
stop_server()
{
  if [[ -n $server_pid ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
clean_up()
{
  stop_server
  "$root/scripts/lab/lab.py" --dir "$lab_dir/lab" down >/dev/null 2>&1 || true
  rm -rf "$lab_dir"
}
trap clean_up EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== on this host: $local_transports ($(uptime | sed 's/.*load/load/'))"
"$root/scripts/tools/sweep.py" "${sweep_options[@]}" --transports "$local_transports" \
  --out "$out/local"
"$python" "$root/scripts/tools/plot.py" "$out/local/sweep.csv" --name brokers-local \
  --title "On one host" --out "$out"

echo "== across lab hosts: $lab_transports"
"$root/scripts/lab/lab.py" --dir "$lab_dir/lab" up 3 --name results --netprof "$netprof" >/dev/null
# h2's address and namespace, and a hosts file of h0 (publisher) and h1 (subscriber) with a broker.
read -r broker_address broker_namespace < <("$python" -c 'import json, sys
host = json.load(open(sys.argv[1]))["hosts"][2]
print(host["address"], host["namespace"])' "$lab_dir/lab/lab.json")
hosts_file()
{
  sed -n '1,/^name = "h2"/p' "$lab_dir/lab/hosts.toml" | head -n -2 >"$lab_dir/$1.toml"
  [[ -z ${2:-} ]] || sed -i "1a broker = \"$2\"" "$lab_dir/$1.toml"
  echo "$lab_dir/$1.toml"
}
wait_for_port()
{
  local try
  for ((try = 0; try < 100; try++)); do
    ip netns exec "$broker_namespace" "$python" -c "import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)" "$broker_address" "$1" \
      2>/dev/null && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "the broker exited" >&2; exit 1; }
    sleep 0.1
  done
  echo "the broker did not accept connections at $broker_address:$1" >&2
  exit 1
}
lab_sweep()
{
  local name=$1 transports=$2 hosts=$3
  "$root/scripts/tools/sweep.py" "${sweep_options[@]}" --transports "$transports" \
    --hosts "$hosts" --ssh-config "$lab_dir/lab/ssh_config" --out "$out/lab-$name"
}

plain=$(echo ",$lab_transports," | sed 's/,mqtt,/,/; s/,redis,/,/; s/^,//; s/,$//')
[[ -z $plain ]] || lab_sweep plain "$plain" "$(hosts_file plain)"
if [[ ,$lab_transports, == *,mqtt,* ]]; then
  chmod 755 "$lab_dir" # mosquitto drops to its own user
  printf 'listener 1883 %s\nallow_anonymous true\npersistence false\nmax_queued_messages 0\nset_tcp_nodelay true\n' \
    "$broker_address" >"$lab_dir/mosquitto.conf"
  chmod 644 "$lab_dir/mosquitto.conf"
  ip netns exec "$broker_namespace" mosquitto -c "$lab_dir/mosquitto.conf" >/dev/null 2>&1 &
  server_pid=$!
  wait_for_port 1883
  lab_sweep mqtt mqtt "$(hosts_file mqtt "$broker_address:1883")"
  stop_server
fi
if [[ ,$lab_transports, == *,redis,* ]]; then
  ip netns exec "$broker_namespace" redis-server --bind "$broker_address" --port 6379 \
    --save '' --appendonly no --protected-mode no >/dev/null 2>&1 &
  server_pid=$!
  wait_for_port 6379
  lab_sweep redis redis "$(hosts_file redis "$broker_address:6379")"
  stop_server
fi
csvs=("$out"/lab-*/sweep.csv)
[[ -e ${csvs[0]} ]] && "$python" "$root/scripts/tools/plot.py" "${csvs[@]}" --name brokers-lab \
  --title "Across lab hosts" --out "$out"
echo "== done: $out ($(uptime | sed 's/.*load/load/'))"
