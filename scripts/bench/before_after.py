#!/usr/bin/python3
"""Runs two netprof binaries, before and after a change, on every transport both know, in
interleaved rounds on the same pinned CPUs, and prints after / before for each figure: the
check that a change of the seam left every transport's figures where they were.

    scripts/bench/before_after.py --before OLD/netprof --after NEW/netprof [--rounds 5]
        [--transports udp,shm,...] [--seconds 1] [--cpu 0,1] [--keep DIR]

For each transport, each round runs a spin ping-pong (one-way p50) and a stream (subscriber
msg/s) with each binary, in alternating order. Transports that need a network namespace of
their own (multicast, broadcast: "flags.private_netns" or "needs_private_netns" in
`netprof --list-transports --json`) run in one made with `unshare --net` (root only). Then
scripts/tools/compare.py judges each transport's runs (one-sided Mann-Whitney U).

Prints one row per transport and figure: before and after medians, the ratio, and compare.py's
verdict (noise, worse, better). Exit status: 0 no figure significantly worse, 1 at least one is,
2 bad command line or a binary that cannot list its transports, 3 too few runs to judge.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
COMPARE = HERE.parent / "tools" / "compare.py"
RUN_DEADLINE_SECONDS = 60
PRIVATE_NETNS_SETUP = "ip link set lo up && ip route add 224.0.0.0/4 dev lo && exec \"$@\""


def listed_transports(binary):
    try:
        listing = subprocess.run([binary, "--list-transports", "--json"], capture_output=True,
                                 text=True, timeout=30, check=True)
        return {t["name"]: t for t in json.loads(listing.stdout)["transports"]}
    except (OSError, subprocess.SubprocessError, ValueError, KeyError) as error:
        sys.exit(f"before_after: {binary} cannot list its transports: {error}")


def needs_private_netns(entry):
    flags = entry.get("flags") or {}
    return bool(flags.get("private_netns", entry.get("needs_private_netns", False)))


def transport_choices(entry):
    """Ways to name the transport to --local-pair, most plain first: its bare option, then
    the address its local pair would give its publisher (-m GROUP:PORT), then nothing (the
    local pair's default transport)."""
    publisher = (entry.get("local_pair") or {}).get("publisher") or []
    return [["--" + entry["options"][0]], publisher[:2], []]


def command(binary, entry, transport_arguments, mode, seconds, cpus, json_path):
    arguments = [binary, "--local-pair", *transport_arguments, "-t", str(seconds),
                 "--warmup-time", "0.3", "--cpu", cpus, "--json", str(json_path)]
    if mode == "ping-pong":
        arguments += ["--mode", "ping-pong", "--wait-strategy", "spin"]
    if needs_private_netns(entry):
        arguments = ["unshare", "--net", "sh", "-c", PRIVATE_NETNS_SETUP, "sh", *arguments]
    return arguments


def run_once(arguments):
    try:
        done = subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=RUN_DEADLINE_SECONDS)
        return done.returncode, done.stderr.strip().splitlines()[-1:] or [""]
    except subprocess.TimeoutExpired:
        return None, ["timed out"]


def working_arguments(binary, entry, seconds, cpus, scratch):
    """The first way of naming the transport that a short run accepts (exit status not 2)."""
    for choice in transport_choices(entry):
        status, _ = run_once(command(binary, entry, choice, "stream", 0.2, cpus,
                                     scratch / "probe.json"))
        if status not in (2, None):
            return choice
    return None


def figure(json_path, mode):
    try:
        report = json.loads(pathlib.Path(json_path).read_text())
        if mode == "ping-pong":
            return report["publisher"]["latency"]["one_way_ns"]["p50"]
        rates = [s["throughput"]["messages_per_second"] for s in report["subscribers"]]
        return sum(rates)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def verdicts(before_files, after_files):
    """compare.py's verdict per figure name, or the reason it gave none."""
    if not before_files or not after_files:
        return {}
    done = subprocess.run(["/usr/bin/python3", str(COMPARE), "--baseline", *before_files,
                           "--contender", *after_files, "--json", "-"],
                          capture_output=True, text=True, timeout=120)
    try:
        rows = json.loads(done.stdout)
        rows = rows.get("figures", rows) if isinstance(rows, dict) else rows
        return {row.get("figure"): row.get("verdict") for row in rows
                if isinstance(row, dict)}
    except ValueError:
        return {}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--cpu", default="0,1")
    parser.add_argument("--transports", default="")
    parser.add_argument("--keep", help="keep the JSON reports in this folder")
    options = parser.parse_args()
    if options.rounds < 1 or options.seconds <= 0:
        parser.error("--rounds and --seconds must be positive")
    before, after = listed_transports(options.before), listed_transports(options.after)
    names = [n for n in after if n in before]
    if options.transports:
        wanted = options.transports.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            parser.error("not known to both binaries: " + ", ".join(unknown))
        names = wanted
    scratch = pathlib.Path(options.keep or tempfile.mkdtemp(prefix="netprof-before-after-"))
    scratch.mkdir(parents=True, exist_ok=True)
    worst = 0
    print(f"{'transport':10} {'figure':22} {'before':>12} {'after':>12} {'ratio':>7}  verdict")
    for name in names:
        choice = working_arguments(options.after, after[name], options.seconds, options.cpu,
                                   scratch)
        if choice is None:
            print(f"{name:10} (no way to run it as a local pair here; skipped)")
            continue
        for mode in ("ping-pong", "stream"):
            files = {"before": [], "after": []}
            values = {"before": [], "after": []}
            for round_index in range(options.rounds):
                order = ("before", "after") if round_index % 2 == 0 else ("after", "before")
                for side in order:
                    binary = options.before if side == "before" else options.after
                    path = scratch / f"{name}-{mode}-{side}-{round_index}.pub.json"
                    status, last = run_once(command(binary, after[name], choice, mode,
                                                    options.seconds, options.cpu, path))
                    value = figure(path, mode) if status == 0 else None
                    if value is None:
                        print(f"  {name} {mode} {side} round {round_index}: exit {status} "
                              f"{last[0]}", file=sys.stderr)
                        continue
                    files[side].append(str(path))
                    values[side].append(value)
            label = "one-way p50 ns" if mode == "ping-pong" else "stream msg/s"
            b = statistics.median(values["before"]) if values["before"] else None
            a = statistics.median(values["after"]) if values["after"] else None
            ratio = f"{a / b:.2f}x" if a and b else "n/a"
            judged = verdicts(files["before"], files["after"])
            key = "one_way_p50_ns" if mode == "ping-pong" else "messages_per_second"
            verdict = judged.get(key)
            worst = max(worst, {"worse": 1, "too few runs": 3}.get(verdict, 0)
                        if verdict else 3)
            shown = lambda v: "n/a" if v is None else f"{v:,.0f}"
            print(f"{name:10} {label:22} {shown(b):>12} {shown(a):>12} {ratio:>7}  "
                  f"{verdict or ('exit ' + str(status))}", flush=True)
    print(f"(JSON reports in {scratch}; pinned --cpu {options.cpu}; "
          f"load average {os.getloadavg()[0]:.2f})")
    return worst


if __name__ == "__main__":
    sys.exit(main())
