#!/usr/bin/python3
"""Runs netprof over a grid of payload sizes and transports on this host and writes one CSV.

For each point (transport, subscriber count, payload size, repetition) it starts the
subscriber(s) and the publisher as separate processes on loopback, waits with a deadline,
kills stragglers by PID and keeps every JSON report. The CSV has one row per point and
repetition with every figure of the publisher's report flattened into columns (see
docs/methodology.md and docs/json-schema.md), each subscriber's as subscribers.K.*.
A failed point is recorded with its reason and the sweep goes on. With --hosts, each point
runs across hosts through scripts/tools/launch.py instead (docs/multi-host.md).

Stream mode sends as fast as possible unless told otherwise (--send-hz auto paces it at a
modest load, --send-hz N at N msg/s): the throughput plot then shows what each transport
carries, not the rate asked for.

Exit status: 0 the sweep ran (even with failed points), 1 every point failed, 2 bad arguments,
130 interrupted. Standard library only.

    scripts/tools/sweep.py --transports udp,shm --sizes 64,1024,65536 --repetitions 3 --out results/s1
    scripts/tools/sweep.py --transports udp --sizes 1K --subscribers 1,4,8 --out results/fanout
    scripts/tools/sweep.py --hosts hosts.toml --sizes 64,1K --subscribers 1,4 --out results/h1
    scripts/tools/plot.py results/s1/sweep.csv
"""

import argparse
import csv
import datetime
import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import netprof_figures as figures  # noqa: E402
import netprof_harness as harness  # noqa: E402
import netprof_services as services  # noqa: E402
import netprof_hosts_file as hosts_file  # noqa: E402
import netprof_hosts_run as hosts_run  # noqa: E402
import netprof_output as output  # noqa: E402
import netprof_tool as tool  # noqa: E402

DEFAULT_SIZES = [2 ** exponent for exponent in range(6, 23)]  # 64 B .. 4 MiB
# With --send-hz auto, stream mode offers at most this much payload per second (and at most
# AUTO_MAX_HZ messages): a modest load that loopback carries on a 2-core machine, so latency
# is not all queueing and large payloads do not simply overflow the buffers.
AUTO_PAYLOAD_BYTES_PER_SECOND = 250_000_000
AUTO_MAX_HZ = 10_000

# Columns every row has, before the flattened report.
POINT_COLUMNS = [
    "point", "repetition", "transport", "mode", "payload_size", "subscribers", "send_hz",
    "queue_length", "duration_seconds", "status", "exit_code", "subscriber_exit_codes", "reason",
    "elapsed_seconds", "started_at", "json_file",
]
# Headline figures, so a plot or a spreadsheet needs no knowledge of the report's nesting.
# Throughput is the mean over subscribers, loss the total (percent: the worst subscriber's).
SUMMARY_COLUMNS = [
    "one_way_p50_ns", "one_way_p90_ns", "one_way_p99_ns", "one_way_max_ns", "rtt_p50_ns",
    "rtt_p99_ns", "rtt_max_ns", "messages_per_second", "payload_bytes_per_second",
    "wire_bytes_per_second", "lost", "loss_percent",
]

ArgumentError = figures.ArgumentError


# ---------------------------------------------------------------------------------------------
# Command line


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Sweep netprof over payload sizes and transports on loopback; write a CSV.",
        epilog="Exit status: 0 the sweep ran (even with failed points), 1 every point failed, "
               "2 bad arguments, 130 interrupted.")
    parser.add_argument("--netprof", default=harness.default_netprof(), help="netprof binary "
                        "(default: netprof on PATH, else this checkout's build/netprof; now "
                        "%(default)s)")
    parser.add_argument("--transports", nargs="+", metavar="NAME", help="transports from "
                        "`netprof --list-transports`, comma- or space-separated, plus zmq-ipc "
                        "(zmq is tcp); default: every transport of the build")
    parser.add_argument("--sizes", help="payload sizes in bytes, comma-separated; K and M "
                        "suffixes mean KiB and MiB (default: powers of two, 64 B to 4 MiB)")
    parser.add_argument("--repetitions", type=int, default=1, help="runs per point; repetitions "
                        "are interleaved, a whole pass at a time (default: %(default)s)")
    parser.add_argument("--duration", type=float, default=1.0, help="measured seconds per run "
                        "(netprof -t; default: %(default)s)")
    parser.add_argument("--warmup", type=float, default=0.2, help="warm-up seconds per run "
                        "(--warmup-time; default: %(default)s)")
    parser.add_argument("--mode", choices=["stream", "ping-pong"], default="stream")
    parser.add_argument("--send-hz", default="0", help="messages per second; 0 (default) = as "
                        "fast as possible, what throughput means; auto = paced at a modest "
                        f"load, at most {AUTO_MAX_HZ} Hz and "
                        f"{AUTO_PAYLOAD_BYTES_PER_SECOND // 10**6} MB/s of payload (latency "
                        "under load rather than queueing); ping-pong is back to back either way")
    parser.add_argument("--subscribers", default="1", help="subscriber processes per run, or "
                        "a comma-separated list of counts to sweep, e.g. 1,4,8 (default: "
                        "%(default)s)")
    parser.add_argument("--queue-length", type=int, help="-q for every run (default: "
                        "max(1000000, 4 x payload size))")
    parser.add_argument("--netprof-args", default="", help="more netprof options for every "
                        "process, one string, e.g. \"--wait-strategy spin\"")
    parser.add_argument("--deadline", type=float, help="seconds a run may take before its "
                        "processes are interrupted and killed (default: wait + warm-up + "
                        "duration + 20)")
    parser.add_argument("--out", help="output folder (default: results/sweep-DATE-TIME)")
    parser.add_argument("--hosts", help="run every point across hosts through "
                        "scripts/tools/launch.py with this hosts file (docs/multi-host.md): "
                        "its publisher and its first N subscribers; any transport launch.py starts "
                        "(default: the file's)")
    parser.add_argument("--ssh-config", help="with --hosts: ssh -F FILE")
    arguments = parser.parse_args(argv)
    check_arguments(arguments)
    return arguments


def check_arguments(arguments):
    arguments.sizes = (DEFAULT_SIZES if arguments.sizes is None
                       else figures.parse_sizes(arguments.sizes))
    if arguments.repetitions < 1:
        raise ArgumentError("--repetitions must be at least 1")
    arguments.subscribers = figures.parse_counts(arguments.subscribers, "--subscribers")
    if not arguments.duration > 0 or arguments.warmup < 0:
        raise ArgumentError("--duration must be > 0 and --warmup >= 0")
    if arguments.send_hz != "auto":
        arguments.send_hz = figures.parse_number(arguments.send_hz, "--send-hz", minimum=0)
    if arguments.deadline is not None and not arguments.deadline > 0:
        raise ArgumentError("--deadline must be > 0")
    arguments.hosts_file = None
    if arguments.hosts:
        try:
            arguments.hosts_file = hosts_file.load(arguments.hosts)
        except hosts_file.HostsFileError as error:
            raise ArgumentError(str(error)) from None
        arguments.transports = arguments.transports or [arguments.hosts_file.transport]
    elif arguments.ssh_config:
        raise ArgumentError("--ssh-config goes with --hosts")
    tool.finish_run_arguments(arguments, "sweep")


def send_hz_for(arguments, payload_size):
    if arguments.send_hz != "auto":
        return arguments.send_hz
    if arguments.mode == "ping-pong":
        return 0.0  # one probe in flight, the next as soon as its echo arrives
    return float(min(AUTO_MAX_HZ, round(AUTO_PAYLOAD_BYTES_PER_SECOND / payload_size, 1)))


# ---------------------------------------------------------------------------------------------
# The grid


def plan_points(arguments, setups):
    """(repetition, setup, subscriber count, size) in the order they run: a whole pass over
    transports, counts and sizes per repetition, so slow drift on the machine spreads over every
    point instead of biasing the last transport."""
    return [(repetition, setup, subscribers, size)
            for repetition in range(1, arguments.repetitions + 1)
            for setup in setups
            for subscribers in arguments.subscribers
            for size in arguments.sizes]


def run_spec(arguments, setup, subscribers, size):
    return harness.RunSpec(
        setup=setup, mode=arguments.mode, payload_size=size, subscribers=subscribers,
        send_hz=send_hz_for(arguments, size), duration_seconds=arguments.duration,
        warmup_seconds=arguments.warmup,
        queue_length=arguments.queue_length or harness.queue_length_for(size),
        extra_args=arguments.netprof_args, deadline=arguments.deadline)


# ---------------------------------------------------------------------------------------------
# Rows


def flatten(value, prefix=""):
    """Every figure of a report as dotted-path columns: `publisher.latency.one_way_ns.p50`,
    `subscribers.0.lost`, `host.cpu_model`. Lists other than subscribers (the command line, a
    histogram) become one JSON cell."""
    columns = {}
    if isinstance(value, dict):
        for key, item in value.items():
            columns.update(flatten(item, f"{prefix}{key}."))
    elif isinstance(value, list) and prefix == "subscribers.":
        for index, item in enumerate(value):
            columns.update(flatten(item, f"{prefix}{index}."))
    elif isinstance(value, list):
        columns[prefix[:-1]] = json.dumps(value, separators=(",", ":"))
    else:
        columns[prefix[:-1]] = value
    return columns


def make_row(index, repetition, spec, outcome, started_at, out_dir):
    row = {
        "point": index, "repetition": repetition, "transport": spec.setup.name,
        "mode": spec.mode, "payload_size": spec.payload_size, "subscribers": spec.subscribers,
        "send_hz": spec.send_hz, "queue_length": spec.queue_length,
        "duration_seconds": spec.duration_seconds, "status": "ok" if outcome.ok else "failed",
        "exit_code": outcome.exit_code,
        "subscriber_exit_codes": " ".join(str(c) for c in outcome.subscriber_exit_codes),
        "reason": outcome.reason, "elapsed_seconds": round(outcome.elapsed_seconds, 3),
        "started_at": started_at,
        "json_file": os.path.relpath(outcome.json_files[0], out_dir)
        if outcome.report else "",
    }
    row.update(figures.summary_figures(outcome.report))
    if outcome.report:
        row.update(flatten(outcome.report))
    return row


def write_csv(path, rows):
    """The whole CSV, rewritten after every point so an interrupted sweep leaves a valid file."""
    columns = list(POINT_COLUMNS + SUMMARY_COLUMNS)
    seen = set(columns)
    for row in rows:
        for key in row:
            if key not in seen:
                seen.add(key)
                columns.append(key)
    with output.open_for_writing(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(rows)


# ---------------------------------------------------------------------------------------------
# Progress


def format_duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def progress_start(index, total, point, arguments):
    repetition, setup, subscribers, size = point
    fanout = ("" if arguments.subscribers == [1]
              else f", {subscribers} subscriber{'s' if subscribers > 1 else ''}")
    print(f"[{index}/{total}] {setup.name} {size} B{fanout} (rep {repetition}/"
          f"{arguments.repetitions}) ...", end="", file=sys.stderr, flush=True)


def progress_end(outcome, index, total, sweep_started):
    elapsed = time.monotonic() - sweep_started
    eta = elapsed / index * (total - index)
    verdict = "ok" if outcome.ok else f"FAILED ({outcome.reason})"
    print(f" {verdict}, ETA {format_duration(eta)}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Main


def sweep(arguments, setups, namespace):
    """Runs every point; returns the rows."""
    os.makedirs(os.path.join(arguments.out, "json"), exist_ok=True)
    csv_path = os.path.join(arguments.out, "sweep.csv")
    points = plan_points(arguments, setups)
    rows = []
    started = time.monotonic()
    for index, point in enumerate(points, start=1):
        repetition, setup, subscribers, size = point
        spec = run_spec(arguments, setup, subscribers, size)
        progress_start(index, len(points), point, arguments)
        started_at = datetime.datetime.now().isoformat(timespec="seconds")
        prefix = namespace.command_prefix() if setup.needs_namespace else ()
        stem = f"{setup.name}-{size}-n{subscribers}-r{repetition}"
        if arguments.hosts_file:
            outcome = hosts_run.run(arguments.netprof, spec, arguments.hosts_file,
                                    arguments.ssh_config, os.path.join(arguments.out, "json"),
                                    stem)
        else:
            outcome = harness.run(arguments.netprof, spec, os.path.join(arguments.out, "json"),
                                  stem, prefix=prefix)
        rows.append(make_row(index, repetition, spec, outcome, started_at, arguments.out))
        write_csv(csv_path, rows)
        progress_end(outcome, index, len(points), started)
    return rows


def write_command(arguments, argv):
    """How this sweep was made, for the results page."""
    output.write_text(os.path.join(arguments.out, "command.txt"),
                      f"date: {datetime.datetime.now().isoformat(timespec='seconds')}\n"
                      f"command: {shlex.join(['scripts/tools/sweep.py', *argv])}\n"
                      f"load average at start: {load_average()}\n")


def write_finish(arguments, started, rows):
    """When it ended and how busy the machine was: other load skews every latency."""
    failed = sum(1 for row in rows if row["status"] != "ok")
    output.append_text(os.path.join(arguments.out, "command.txt"),
                       f"finished: {datetime.datetime.now().isoformat(timespec='seconds')} after "
                       f"{format_duration(time.monotonic() - started)}; {len(rows) - failed} of "
                       f"{len(rows)} runs ok\n"
                       f"load average at end: {load_average()}\n")


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv):
    started = tool.start_tool("sweep", parse_arguments, argv)
    if started is None:
        return 2
    arguments, setups, namespace = started
    roudi, reason = services.roudi_for(setups)
    if reason:
        if namespace:
            namespace.delete()
        print(f"sweep: iceoryx: {reason}", file=sys.stderr)
        return 2
    try:
        os.makedirs(arguments.out, exist_ok=True)
        write_command(arguments, argv)
        started = time.monotonic()
        rows = sweep(arguments, setups, namespace)
        write_finish(arguments, started, rows)
    except KeyboardInterrupt:
        print("\nsweep: interrupted; the CSV holds the points that finished", file=sys.stderr)
        return 130
    except output.OutputRefused as error:
        print(f"sweep: {error}", file=sys.stderr)
        return 2
    finally:
        if namespace:
            namespace.delete()
        if roudi:
            roudi.stop()
    failed = sum(1 for row in rows if row["status"] != "ok")
    print(f"sweep: {len(rows) - failed} of {len(rows)} runs ok; "
          f"{os.path.join(arguments.out, 'sweep.csv')}", file=sys.stderr)
    return 1 if failed == len(rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
