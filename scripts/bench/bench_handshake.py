#!/usr/bin/python3
"""What address proof costs (issue 18): the handshake, and the measured phase, before and after.

Usage: scripts/bench/bench_handshake.py BASELINE_NETPROF NETPROF [--joins N] [--repeat R]

BASELINE_NETPROF is a build without the proof (e.g. commit c515eeb built in another folder),
NETPROF the one to judge. Both are measured in this run, alternately, on UDP loopback.

- Handshake: this script plays N subscribers of one real publisher. Each sends a hello and,
  if challenged, the hello again with the cookie, and the time from its first hello to the
  publisher's acknowledgement is one sample. Before the proof that is one round trip; with it,
  two (plus one keyed hash).
- Measured phase: a ping-pong local pair (round trip p50 and p99) and a paced-free stream
  local pair (messages/s on the subscriber's clock), R times each, medians compared. The
  target is "unchanged within noise": each ratio is printed beside the spread of the baseline's
  own repetitions.
"""

import argparse
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HEADER = struct.Struct("<IBBHIQQqqII")
MAGIC, VERSION = 0x4652504E, 1
HELLO, HELLO_ACK, CHALLENGE = 1, 2, 8
DEADLINE_S = 60


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def hello(sender, tag, cookie=0):
    return HEADER.pack(MAGIC, VERSION, HELLO, 0, sender, 0, 0, cookie, 0, 0, tag)


def one_join(sock, publisher, sender, tag):
    """Seconds from the first hello to the acknowledgement naming `sender`."""
    start = time.perf_counter()
    sock.sendto(hello(sender, tag), publisher)
    deadline = start + 5
    while time.perf_counter() < deadline:
        datagram = sock.recv(70000)
        if len(datagram) < HEADER.size:
            continue
        fields = HEADER.unpack_from(datagram)
        kind, sequence = fields[2], fields[6]
        if sequence != sender:
            continue
        if kind == CHALLENGE:
            sock.sendto(hello(sender, tag, fields[7]), publisher)
        elif kind == HELLO_ACK:
            return time.perf_counter() - start
    raise RuntimeError(f"no acknowledgement for subscriber {sender}")


def handshake_samples(netprof, joins):
    port = free_udp_port()
    publisher = subprocess.Popen(
        [netprof, "-i", "0", "-u", f"127.0.0.1:{port}", "--subscribers", str(joins + 1),
         "--wait", "30", "-t", "1", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)  # bound by now
        samples = []
        for sender in range(1, joins + 1):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.bind(("127.0.0.1", 0))
                sock.settimeout(5)
                samples.append(one_join(sock, ("127.0.0.1", port), sender, 0x1000 + sender))
        return samples
    finally:
        publisher.kill()
        publisher.wait(timeout=DEADLINE_S)


def local_pair(netprof, *args):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "pair.json")
        subprocess.run([netprof, "--local-pair", "-u", f"127.0.0.1:{free_udp_port()}", "-u",
                        f"127.0.0.1:{free_udp_port()}", "--quiet", "--json", path, *args],
                       check=True, timeout=DEADLINE_S)
        with open(path) as report:
            return json.load(report)


def measured_figures(netprof):
    ping = local_pair(netprof, "--mode", "ping-pong", "-t", "2", "--wait-strategy", "spin")
    rtt = ping["publisher"]["latency"]["rtt_ns"]
    stream = local_pair(netprof, "-t", "2")
    rate = stream["subscribers"][0]["throughput"]["messages_per_second"]
    return {"rtt p50 ns": rtt["p50"], "rtt p99 ns": rtt["p99"], "stream msg/s": rate}


def spread(values):
    return (max(values) - min(values)) / statistics.median(values) if values else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline")
    parser.add_argument("netprof")
    parser.add_argument("--joins", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    binaries = {"baseline": options.baseline, "netprof": options.netprof}

    print(f"handshake: {options.joins} joins to one publisher, first hello to acknowledgement")
    joins = {name: [] for name in binaries}
    for _ in range(options.repeat):
        for name, binary in binaries.items():
            joins[name] += handshake_samples(binary, options.joins)
    for name in binaries:
        samples = sorted(joins[name])
        print(f"  {name:9} median {statistics.median(samples) * 1e6:8.1f} us   "
              f"p90 {samples[int(0.9 * len(samples))] * 1e6:8.1f} us   ({len(samples)} joins)")
    ratio = statistics.median(joins["netprof"]) / statistics.median(joins["baseline"])
    print(f"  ratio netprof/baseline: {ratio:.2f}x (one more round trip on loopback)")

    print(f"measured phase: local pairs over UDP loopback, {options.repeat} runs each, medians")
    figures = {name: [] for name in binaries}
    for _ in range(options.repeat):
        for name, binary in binaries.items():
            figures[name].append(measured_figures(binary))
    for key in figures["baseline"][0]:
        base = [run[key] for run in figures["baseline"]]
        new = [run[key] for run in figures["netprof"]]
        print(f"  {key:13} baseline {statistics.median(base):12,.0f}   netprof "
              f"{statistics.median(new):12,.0f}   ratio {statistics.median(new) / statistics.median(base):.2f}x"
              f"   (baseline's own spread {spread(base) * 100:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
