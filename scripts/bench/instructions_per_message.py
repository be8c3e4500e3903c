#!/usr/bin/python3
"""netprof's own work per message, counted: the user-space instructions its publisher's send
phase and its subscriber's receive loop execute per message of a stream, under valgrind's
callgrind. The kernel's work, the transport library's threads and the time spent waiting are
not counted; what is, is netprof's machinery plus the transport's calls from it (system call
wrappers, a library's send and receive). A count does not move with the load, the vCPU
placement or the clock's cost, so a change of the per-message path shows as a figure that a
timed benchmark would hide in its noise.

    scripts/bench/instructions_per_message.py [--after BUILD/netprof] [--before OLD/netprof]
        [--transports udp,tcp,uds,mq,shm] [--seconds 2] [--keep DIR]

For each transport, one `netprof --local-pair TRANSPORT --mode stream -s 128 --warmup-time 0`
per binary runs under callgrind (both processes), collecting only inside
SendLoop::run_phase (the publisher) and run_subscriber (the subscriber). Each count is
divided by the messages that side handled: the publisher's sent, the subscriber's received.
A subscriber's count includes its joining and its END exchange, some ten thousand
instructions over hundreds of thousands of messages. Under callgrind both sides run some 50 times slower,
so the rate is no figure here; docs/benchmarks.md says how to read the counts.

Exit status: 0 counted, 1 a run failed or counted nothing, 2 bad command line or valgrind
missing (apt-get install valgrind).
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

RUN_DEADLINE_SECONDS = 300
# Functions no build inlines away (a link-time optimised one keeps these two).
PUBLISHER_LOOP = "netprof::SendLoop::run_phase*"
SUBSCRIBER_LOOP = "netprof::run_subscriber*"
PAYLOAD = 128


def counted(binary, transport, seconds, folder):
    """(instructions per message sent, per message received), or the reason there are none."""
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / "report.json"
    # udp is the local pair's default, and --udp takes an address; every other transport's
    # option alone makes the local pair choose its addresses.
    named = [] if transport == "udp" else [f"--{transport}"]
    arguments = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--collect-atstart=no",
                 f"--toggle-collect={PUBLISHER_LOOP}", f"--toggle-collect={SUBSCRIBER_LOOP}",
                 f"--callgrind-out-file={folder}/callgrind.%p", binary, "--local-pair",
                 *named, "--mode", "stream", "-s", str(PAYLOAD), "-t", str(seconds),
                 "--warmup-time", "0", "--quiet", "--json", str(report)]
    try:
        done = subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=RUN_DEADLINE_SECONDS)
    except subprocess.TimeoutExpired:
        return f"timed out after {RUN_DEADLINE_SECONDS} s"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return f"exit {done.returncode}: {lines[-1] if lines else ''}"
    try:
        figures = json.loads(report.read_text())
        sent = figures["publisher"]["messages_sent"]
        received = sum(s["received"] for s in figures["subscribers"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"no report: {error}"
    roles = {}
    for output in folder.glob("callgrind.*"):
        role, total = role_and_total(output)
        if role is not None:
            roles[role] = total
    if sent == 0 or received == 0 or not roles.get("-i 0") or not roles.get("-i 1"):
        return "nothing counted"
    return roles["-i 0"] / sent, roles["-i 1"] / received


def role_and_total(output):
    """Which role a callgrind output is of ("-i 0", "-i 1", or None: the local pair's parent)
    and the instructions it counted."""
    role, total = None, 0
    for line in output.read_text(errors="replace").splitlines():
        if line.startswith("cmd:"):
            words = line.split()
            if "-i" in words and words.index("-i") + 1 < len(words):
                role = "-i " + words[words.index("-i") + 1]
        elif line.startswith("totals:") or line.startswith("summary:"):
            total = int(line.split()[1])
    return role, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--after", default="build/netprof", help="the binary measured")
    parser.add_argument("--before", help="an older binary, counted alike, for the ratio")
    parser.add_argument("--transports", default="udp,tcp,uds,mq,shm")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--keep", help="keep callgrind's outputs and the reports here")
    options = parser.parse_args()
    if options.seconds <= 0:
        parser.error("--seconds must be positive")
    if shutil.which("valgrind") is None:
        print("instructions_per_message: valgrind is not installed (apt-get install valgrind)",
              file=sys.stderr)
        return 2
    binaries = {"after": options.after}
    if options.before:
        binaries["before"] = options.before
    for name, binary in binaries.items():
        if not os.access(binary, os.X_OK):
            parser.error(f"--{name}: {binary} is not an executable")
    scratch = pathlib.Path(options.keep or tempfile.mkdtemp(prefix="netprof-instructions-"))
    failed = False
    print(f"user-space instructions per message, stream -s {PAYLOAD}, under callgrind")
    print(f"{'transport':10} {'side':10} {'before':>8} {'after':>8} {'ratio':>7}")
    for transport in options.transports.split(","):
        results = {}
        for name, binary in binaries.items():
            results[name] = counted(binary, transport, options.seconds,
                                    scratch / f"{transport}-{name}")
            if isinstance(results[name], str):
                print(f"{transport:10} {name}: {results[name]}", file=sys.stderr)
                failed = True
        for index, side in enumerate(("publisher", "subscriber")):
            shown = {name: (f"{result[index]:.0f}" if isinstance(result, tuple) else "n/a")
                     for name, result in results.items()}
            before, after = results.get("before"), results.get("after")
            ratio = (f"{after[index] / before[index]:.2f}x"
                     if isinstance(before, tuple) and isinstance(after, tuple) else "")
            print(f"{transport:10} {side:10} {shown.get('before', ''):>8} "
                  f"{shown['after']:>8} {ratio:>7}", flush=True)
    if options.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
